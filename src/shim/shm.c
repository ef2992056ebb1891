/* The payload area of an op socket (see UALG_MSG_SHM_SETUP in proto.h):
 * large transfers are copied into it once and named by {offset, length}
 * instead of travelling in 60 KiB frames.  Set up on the first large
 * transfer; wherever it is unavailable (algd refused, another process
 * after fork or execve, another thread using it) the frame path serves. */
#include "shim.h"
#include "msg.h"	/* the replies' decoders */

#include <sys/mman.h>
#include <unistd.h>

/* Asks algd for the area and maps it; false when there is none. */
static bool shm_setup(int fd, struct afd *a)
{
	struct ualg_shm_setup_reply rep;
	struct iovec body = { &rep, sizeof(rep) };
	struct xact x = { .type = UALG_MSG_SHM_SETUP, .rbody = &body, .nrbody = 1,
			  .want_fd = true, .cloexec = true };
	void *map;

	int r = client_xact(a, fd, &x);
	bool ok = r == 0 && x.rfd >= 0 && !ualg_decode_fixed_reply(r, x.rlen, sizeof(rep)) &&
		  rep.size >= SHM_MIN && rep.size <= (1u << 30) && ualg_memfd_map(x.rfd, (size_t)rep.size, &map) == 0;
	if (x.rfd >= 0)
		real.close(x.rfd);
	if (!ok)
		return false;
	a->shm = map;
	a->shm_size = (size_t)rep.size;
	a->shm_pid = getpid();
	return true;
}

uint8_t *shm_acquire(int fd, struct afd *a)
{
	if (!a->op || a->nl_peer >= 0)
		return NULL;
	int state = atomic_load(&a->shm_state);
	if (state == SHM_NONE) {
		/* One thread sets it up; others meanwhile use frames. */
		if (!atomic_compare_exchange_strong(&a->shm_state, &state, SHM_BUSY))
			return NULL;
		state = shm_setup(fd, a) ? SHM_READY : SHM_NEVER;
		atomic_store(&a->shm_state, state);
	}
	/* After fork the area is shared with the parent, which may be
	 * using it now: only the process that set it up uses it. */
	if (state != SHM_READY || a->shm_pid != getpid())
		return NULL;
	if (pthread_mutex_trylock(&a->shm_lock))
		return NULL;	/* another thread's transfer holds it */
	return a->shm;
}

void shm_release(struct afd *a)
{
	pthread_mutex_unlock(&a->shm_lock);
}

void shm_forget(struct afd *a)
{
	if (a->shm)
		munmap(a->shm, a->shm_size);
	a->shm = NULL;
}
