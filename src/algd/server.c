/* The daemon's event loop: one epoll set serving every connection (their
 * table is conn.c's, what they ask dispatch.c's), the listener's new
 * clients, signals, and the busy-poll that follows a data request. */
#include "fast_serve.h"
#include "server.h"
#include "payload.h"
#include "closer.h"
#include "account.h"
#include "clock.h"
#include "config.h"
#include "conn.h"
#include "dispatch.h"
#include "keystore.h"
#include "listener.h"
#include "log.h"
#include "offload.h"
#include "ring.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

static uid_t self_uid;	/* after the privilege drop */
static int epfd = -1;
static const struct policy *policy;
static struct dispatcher disp;

/* Root, or a member of the configured admin group (SO_PEERGROUPS gives
 * the peer's supplementary groups as they were at connect()). */
static bool peer_is_admin(const struct key_caller *who)
{
	const struct algd_config *cfg = config_get();

	if (who->uid == 0)
		return true;
	if (!cfg->has_admin_gid)
		return false;
	if (who->gid == cfg->admin_gid)
		return true;
	for (size_t i = 0; i < who->ngroups; i++)
		if (who->groups[i] == cfg->admin_gid)
			return true;
	return false;
}

static void on_connection(int fd)
{
	struct key_caller who;

	if (keystore_caller(fd, &who)) {
		close(fd);
		return;
	}
	if (!policy_allows(policy, who.uid, who.gid, self_uid)) {
		log_verbose(1, "refused uid %u gid %u", who.uid, who.gid);
		listener_refuse(fd, EACCES);
		return;
	}
	struct client *cl = client_get(who.uid);
	if (!cl) {
		listener_refuse(fd, ENOMEM);
		return;
	}
	if (client_full(cl) || account_fds(cl->acct, 1)) {
		client_put(cl);
		listener_refuse(fd, EMFILE);
		return;
	}
	struct alg_sock *sk = afalg_sock_new();
	if (sk)
		sk->mem = &cl->acct->mem;
	struct conn *c = sk ? conn_add(fd, cl, sk, false) : NULL;
	if (!c) {
		account_fds_put(cl->acct, 1);
		afalg_sock_put(sk);
		client_put(cl);
		listener_refuse(fd, ENOMEM);
		return;
	}
	c->who = who;
	c->admin = peer_is_admin(&who);
	/* Keys: crypto_user's administrators, and the user whose private
	 * algd this is (never whoever shares the uid algd dropped to). */
	c->key_admin = c->admin || who.uid == disp.owner_uid;
}

/* One connection per event: the listener stays ready (level-triggered)
 * while more wait, and the loop takes them in turn with everything else,
 * without a last accept4() that finds none. */
static void on_listener(int lfd)
{
	disp.spin_until = now_us() + ring_poll_us();	/* its HELLO follows (dispatch.h) */
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd >= 0)
		on_connection(fd);
	else if (errno == EMFILE || errno == ENFILE)
		listener_refuse_pending(lfd);
}

/* Once listening: the buffer that sees keys in transit is locked and kept
 * out of cores; then privileges go and the syscall filter comes. */
static int confine(const struct server_opts *opts)
{
	sandbox_protect(disp.rxbuf, sizeof(disp.rxbuf));
	if (opts->drop && sandbox_drop_privileges(opts->uid, opts->gid))
		return -1;
	self_uid = geteuid();
	disp.owner_uid = opts->drop || self_uid == 0 ? (uid_t)-1 : self_uid;
	keystore_set_self(disp.owner_uid);
	offload_set_owner(disp.owner_uid);
	return sandbox_filter(!opts->no_seccomp);
}

/* Busy-polling pays while the clients are on a CPU.  A poll that ended
 * with nothing new means they were not (their next request was late: a
 * busy host, or a client with other work between calls), and the next
 * 2, 4, ... 256 polls are skipped, as an adaptive mutex stops spinning for
 * an owner that sleeps; a poll that finds a request ends the backoff. */
#define SPIN_BACKOFF_MAX 8
static unsigned spin_misses, spin_skip;

static void spin_result(bool found)
{
	if (found) {
		spin_misses = 0;
		return;
	}
	if (spin_misses < SPIN_BACKOFF_MAX)
		spin_misses++;
	spin_skip = 1u << spin_misses;
}

/* Busy-polls until the dispatcher's deadline (dispatch.h), serving the
 * shared pages of the connections it served meanwhile (fast_serve.h), then
 * sleeps; never while connections wait for their turn. */
static int next_events(struct epoll_event *evs, int max)
{
	if (conn_any_ready())
		return epoll_wait(epfd, evs, max, 0);
	const bool contended = disp.spin_until && ualg_cpu_contended();
	const bool skip = disp.spin_until && (spin_skip || contended);
	if (skip) {
		if (spin_skip && !contended)
			spin_skip--;
		disp.spin_until = now_us();	/* over at once */
	}
	while (disp.spin_until) {
		int n = epoll_wait(epfd, evs, max, 0);
		if (n != 0) {
			if (!skip)
				spin_result(true);
			return n;
		}
		if (fast_serve_poll(&disp)) {
			if (!skip)
				spin_result(true);
			continue;
		}
		if (now_us() < disp.spin_until) {
			sched_yield();
		} else if (!fast_serve_unwatch()) {
			disp.spin_until = 0;
			if (!skip)
				spin_result(false);
		}
	}
	return epoll_wait(epfd, evs, max, -1);
}

/* How long the loop serves frames before it looks for new events: a uid
 * that becomes ready waits at most this, plus one frame of each other
 * uid with work. */
#define SERVE_ROUND_US 1000

/* One frame of each uid with readable connections in turn (conn.h), until
 * none has any or the round is over; epoll reports again whatever is left
 * unread. */
static void serve_turns(void)
{
	const uint64_t until = now_us() + SERVE_ROUND_US;
	struct conn *c;

	while ((c = conn_next_ready())) {
		if (!c->closed && !c->busy)
			dispatch_readable(&disp, c);
		if (now_us() >= until)
			break;
	}
}

/* epoll_wait()'s array, and how many more times it is filled before the
 * connections it found are served: enough for every fd algd may hold. */
#define EVENTS_MAX 256
#define EVENTS_ROUNDS_MAX 64

/* What is not a connection is handled now; a connection's input is queued
 * for its uid's turn (conn_ready()). */
static void queue_events(const struct epoll_event *evs, int n, int lfd, int sfd, bool *running)
{
	for (int i = 0; i < n; i++) {
		void *tag = evs[i].data.ptr;
		if (tag == &conn_listener_tag) {
			on_listener(lfd);
		} else if (tag == &conn_offload_tag) {
			offload_complete(&disp);
		} else if (tag == &conn_signal_tag) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo != SIGHUP)
					*running = false;
				else if (config_reload())
					algd_log(LOG_WARNING, "configuration not reloaded; old settings kept");
				else
					log_verbose(0, "configuration reloaded");
			}
		} else {
			struct conn *c = tag;
			if (c->closed || c->busy)
				continue;
			if (evs[i].events & EPOLLIN)
				conn_ready(c);
			else
				conn_close(c);	/* HUP or error with nothing to read */
		}
	}
}

int server_run(const struct server_opts *opts)
{
	sigset_t mask;
	unsigned max_sockets = SERVER_MAX_SOCKETS_DEFAULT;

	log_set_verbosity(opts->verbose);
	policy = &opts->policy;
	if (opts->max_sockets)
		max_sockets = opts->max_sockets;
	ualg_instances_cap(SERVER_INSTANCES_PER_UID);
	account_set_max_sockets(max_sockets);
	dispatcher_init(&disp, closer_dispose);
	if (control_init() < 0)
		algd_log(LOG_WARNING, "no control page: programs ask at every bind()");
	sandbox_limits();
	struct rlimit nofile;
	unsigned fd_max = opts->uid_fd_max;
	/* Default: a quarter of algd's own limit, so that three uids at
	 * theirs leave a quarter for everyone else. */
	if (!fd_max && !getrlimit(RLIMIT_NOFILE, &nofile))
		fd_max = nofile.rlim_cur / 4 < UINT32_MAX ? (unsigned)(nofile.rlim_cur / 4) : UINT32_MAX;
	account_set_limits(opts->uid_mem_max, opts->uid_key_heap, fd_max);
	char lpath[128];
	int lfd = listener_open(opts, lpath, sizeof(lpath));
	if (lfd < 0)
		return 1;
	listener_keep_spare(lfd);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (closer_start())
		return 1;
	int ofd = offload_start(&disp);
	if (ofd < 0)
		return 1;
	disp.offload = true;
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || epfd < 0)
		return 1;
	conn_table_init(epfd);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &conn_listener_tag };
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &conn_signal_tag;
	epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.ptr = &conn_offload_tag;
	epoll_ctl(epfd, EPOLL_CTL_ADD, ofd, &ev);
	if (confine(opts))
		return 1;

	if (opts->ready_fd >= 0) {
		(void)!write(opts->ready_fd, "1", 1);
		close(opts->ready_fd);
	}
	log_verbose(1, "listening on %s", lpath);

	static struct epoll_event evs[EVENTS_MAX];
	for (bool running = true; running;) {
		int n = next_events(evs, EVENTS_MAX);
		if (n < 0 && errno != EINTR)
			break;
		/* Every ready connection is queued before any is served, so that
		 * a uid's turn does not wait on how many another keeps ready. */
		for (unsigned more = 0; n == EVENTS_MAX && more < EVENTS_ROUNDS_MAX; more++) {
			queue_events(evs, n, lfd, sfd, &running);
			n = epoll_wait(epfd, evs, EVENTS_MAX, 0);
		}
		queue_events(evs, n, lfd, sfd, &running);
		serve_turns();
		conn_free_closed();
	}
	offload_drain(&disp);
	while (conn_list())
		conn_close(conn_list());
	conn_free_closed();
	keystore_clear();
	control_close();
	listener_close(lfd, opts);
	return 0;
}
