/* The /dev/crypto session layer (see cryptodev.h), answering as the
 * cryptodev-linux module does: its ioctl.c, main.c and authenc.c decide
 * each errno and the order of the checks.  The module's zero-copy path
 * pins the caller's pages; here the data goes through a bounce buffer
 * (what the module does with COP_FLAG_NO_ZC), 64 KiB at a time where
 * the operation allows it.  Asynchronous requests run when submitted and
 * wait in the file's queue for CIOCASYNCFETCH, as if the module's worker
 * had run at once.
 *
 * This file: the open file's lifetime and the ioctl switch, under the one
 * lock.  Sessions are in cryptodev_session.c, CIOCCRYPT and the
 * asynchronous requests in cryptodev_crypt.c, CIOCAUTHCRYPT in
 * cryptodev_authcrypt.c. */
#include "cryptodev_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One lock for every file: the core's registry has one owner at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int init_result = 1;

int cdev_init(void)
{
	pthread_mutex_lock(&lock);
	if (init_result > 0)
		init_result = ualg_core_init();
	int r = init_result;
	pthread_mutex_unlock(&lock);
	return r;
}

struct cdev_file *cdev_open(void)
{
	struct cdev_file *f = calloc(1, sizeof(*f));

	if (f)
		f->refs = 1;
	return f;
}

void cdev_get(struct cdev_file *f)
{
	pthread_mutex_lock(&lock);
	f->refs++;
	pthread_mutex_unlock(&lock);
}

void cdev_put(struct cdev_file *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&lock);
	if (--f->refs == 0) {
		while (f->sessions) {
			struct session *s = f->sessions;
			f->sessions = s->next;
			cdev_session_free(s);
		}
		while (f->head) {
			struct done *d = f->head;
			f->head = d->next;
			ualg_wipe(d, sizeof(*d));
			free(d);
		}
		free(f);
	}
	pthread_mutex_unlock(&lock);
}

/* ---- the ioctl switch ----------------------------------------------- */

static long dispatch(struct cdev_file *f, unsigned long cmd, uint64_t arg, const struct cdev_mem *m,
		     int evfd)
{
	int r;

	switch (cmd) {
	case CIOCASYMFEAT: {
		uint32_t zero = 0;
		return m->write(m->ctx, arg, &zero, sizeof(zero));
	}
	case CIOCGSESSION: case CIOCGSESSION2: {
		struct session2_op sop;
		bool named = cmd == CIOCGSESSION2;
		size_t size = named ? sizeof(struct session2_op) : sizeof(struct session_op);
		memset(&sop, 0, sizeof(sop));
		if ((r = m->read(m->ctx, arg, &sop, size)))
			return r;
		if ((r = cdev_create_session(f, &sop, named, m)))
			return r;
		if ((r = m->write(m->ctx, arg, &sop, size))) {
			cdev_finish_session(f, sop.ses);
			return -EFAULT;
		}
		return 0;
	}
	case CIOCFSESSION: {
		uint32_t ses;
		if ((r = m->read(m->ctx, arg, &ses, sizeof(ses))))
			return r;
		return cdev_finish_session(f, ses);
	}
	case CIOCGSESSINFO: {
		struct session_info_op si;
		if ((r = m->read(m->ctx, arg, &si, sizeof(si))))
			return r;
		if ((r = cdev_session_info(f, &si)))
			return r;
		return m->write(m->ctx, arg, &si, sizeof(si));
	}
	case CIOCCPHASH: {
		struct cphash_op cp;
		if ((r = m->read(m->ctx, arg, &cp, sizeof(cp))))
			return r;
		return cdev_copy_hash_state(f, cp.dst_ses, cp.src_ses);
	}
	case CIOCCRYPT:
		return cdev_crypt_ioctl(f, arg, m);
	case CIOCAUTHCRYPT:
		return cdev_authcrypt_ioctl(f, arg, m);
	case CIOCASYNCCRYPT:
		return cdev_async_crypt(f, arg, m, evfd);
	case CIOCASYNCFETCH:
		return cdev_async_fetch(f, arg, m, evfd);
	case CRIOGET:
		return -ENOTTY;
	default:
		return -EINVAL;
	}
}

long cdev_ioctl(struct cdev_file *f, unsigned long cmd, uint64_t arg, const struct cdev_mem *m, int evfd)
{
	pthread_mutex_lock(&lock);
	long r = dispatch(f, cmd, arg, m, evfd);
	pthread_mutex_unlock(&lock);
	return r;
}
