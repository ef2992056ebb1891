/* The supervisor's notification loop: receiver threads take the seccomp
 * notifications, each is dispatched by its system call and fd, and
 * answered (a result, an errno, or "let the kernel run it"). */
#include "supervise_impl.h"

#include <errno.h>
#include <pthread.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#define IDLE_MAX 4			/* receiver threads kept waiting */
#define THREADS_MAX 256			/* calls served at once; more wait their turn */

static atomic_uint idle_receivers, receivers;

bool still_valid(const struct call *c)
{
	uint64_t id = c->req.id;
	return ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void respond(const struct call *c, int64_t val, int err, uint32_t flags)
{
	struct seccomp_notif_resp r = { .id = c->req.id, .val = val, .error = err, .flags = flags };
	ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &r);	/* ENOENT: the call was abandoned */
}

void answer(const struct call *c, int64_t r)
{
	if (r < 0)
		respond(c, 0, (int)r, 0);
	else
		respond(c, r, 0, 0);
}

void pass_on(const struct call *c)
{
	atomic_fetch_add(&n_passed, 1);
	respond(c, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

static void serve(struct call *c)
{
	const int nr = c->req.data.nr;

	atomic_fetch_add(&n_notified, 1);
	c->pid = (pid_t)c->req.pid;
	c->arg = c->req.data.args;
	call_mem_init(c);
	if (c->req.data.arch != SCMP_ARCH_X86_64) {
		pass_on(c);
		return;
	}
	if (nr == SYS_socket) {
		serve_socket(c);
		return;
	}
	if (nr == SYS_splice || nr == SYS_sendfile) {
		int64_t r = serve_splice(c, nr == SYS_sendfile);
		if (r == SPLICE_NOT_OURS)
			pass_on(c);
		else
			answer(c, r);
		return;
	}
	if (nr == SYS_open || nr == SYS_openat) {
		bool at = nr == SYS_openat;
		if (!serve_open_devcrypto(c, c->arg[at], (int)c->arg[at + 1]))
			pass_on(c);
		return;
	}
	if (serve_cdev(c, c->arg[0]))
		return;
	struct esock *e = lookup(c->pid, c->arg[0]);
	if (!e) {
		pass_on(c);	/* an ordinary fd that strayed into the range */
		return;
	}
	serve_fd_call(c, e);
	esock_put(e);
}

/* ---- receiving notifications ------------------------------------------ */

/* Each notification is served on the thread that received it; one more
 * thread is started whenever none is left waiting, so a call that blocks
 * (a read waiting for another thread's write) holds up no other. */
static void *receiver(void *arg)
{
	static __thread struct call c;

	(void)arg;
	for (;;) {
		memset(&c.req, 0, sizeof(c.req));
		if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_RECV, &c.req)) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		if (atomic_fetch_sub(&idle_receivers, 1) == 1)
			spawn_receiver();
		serve(&c);
		if (atomic_fetch_add(&idle_receivers, 1) >= IDLE_MAX) {
			atomic_fetch_sub(&idle_receivers, 1);
			break;
		}
	}
	atomic_fetch_sub(&receivers, 1);
	return NULL;
}

void spawn_receiver(void)
{
	pthread_t t;
	pthread_attr_t at;

	if (atomic_fetch_add(&receivers, 1) >= THREADS_MAX) {
		atomic_fetch_sub(&receivers, 1);
		return;
	}
	atomic_fetch_add(&idle_receivers, 1);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, receiver, NULL)) {
		atomic_fetch_sub(&idle_receivers, 1);
		atomic_fetch_sub(&receivers, 1);
	}
	pthread_attr_destroy(&at);
}
