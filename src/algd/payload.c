/* The payload area and notify counter a connection shares with its client
 * (see payload.h). */
#include "payload.h"
#include "msg.h"
#include "crypto.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Overflow-safe: off is checked first, then len against what is left. */
uint8_t *payload_range(const struct conn *c, const struct ualg_shm_ref *ref)
{
	if (!c->shm || ref->off > c->shm_size || ref->len > c->shm_size - ref->off)
		return NULL;
	return c->shm + ref->off;
}

/* A type whose send() only copies its input into its queue reads it in
 * the area (each byte once); any other gets it from a private copy, so
 * that nothing it computes depends on memory the client may be rewriting
 * meanwhile. */
const uint8_t *payload_input(struct payload_copy *copy, const struct conn *c, const uint8_t *in,
			     size_t len)
{
	if (c->sk->type->send_copies || !len)
		return in;
	if (len > copy->cap) {
		uint8_t *b = malloc(len);
		if (!b)
			return NULL;
		ualg_wipe(copy->buf, copy->cap);
		free(copy->buf);
		copy->buf = b;
		copy->cap = len;
	}
	memcpy(copy->buf, in, len);
	return copy->buf;
}

int payload_memfd(struct conn *c, const char *name, size_t size, void **map)
{
	if (!ualg_budget_charge(&c->cl->acct->mem, size))
		return -ENOMEM;
	int fd = ualg_memfd_create(name, size, map);
	if (fd < 0)
		ualg_budget_uncharge(&c->cl->acct->mem, size);
	return fd;
}

/* The op socket's payload area, created sealed, mapped here and passed to
 * the client; algd keeps only the mapping. */
int payload_setup(struct conn *c, size_t len)
{
	struct ualg_shm_setup_reply rep = { UALG_SHM_SIZE };
	void *map;

	if (ualg_decode_empty(len))
		return -1;
	if (!c->sk->connected)
		return conn_reply(c, UALG_MSG_SHM_SETUP, 0, -EOPNOTSUPP, NULL, 0, -1) ? -1 : 0;
	if (c->shm)
		return conn_reply(c, UALG_MSG_SHM_SETUP, 0, -EBUSY, NULL, 0, -1) ? -1 : 0;
	int fd = payload_memfd(c, "ualg-shm", UALG_SHM_SIZE, &map);
	if (fd < 0)
		return conn_reply(c, UALG_MSG_SHM_SETUP, 0, fd, NULL, 0, -1) ? -1 : 0;
	c->shm = map;
	c->shm_size = UALG_SHM_SIZE;
	int r = conn_reply(c, UALG_MSG_SHM_SETUP, 0, 0, &rep, sizeof(rep), fd);
	close(fd);
	return r ? -1 : 0;
}

void payload_drop(struct conn *c)
{
	if (c->shm) {
		munmap(c->shm, c->shm_size);
		ualg_budget_uncharge(&c->cl->acct->mem, c->shm_size);
	}
	c->shm = NULL;
}

void notify_drop(struct conn *c)
{
	if (c->notify && c->notify_own) {
		munmap((void *)c->notify, UALG_NOTIFY_SIZE);
		ualg_budget_uncharge(&c->cl->acct->mem, UALG_NOTIFY_SIZE);
	}
	c->notify = NULL;
	c->notify_own = false;
}

int notify_setup(struct conn *c, size_t len)
{
	void *map;

	if (ualg_decode_empty(len))
		return -1;
	int fd = payload_memfd(c, "ualg-notify", UALG_NOTIFY_SIZE, &map);
	if (fd < 0)
		return conn_reply(c, UALG_MSG_NOTIFY_SETUP, 0, fd, NULL, 0, -1) ? -1 : 0;
	notify_drop(c);	/* a program after execve sets up its own */
	int r = conn_reply(c, UALG_MSG_NOTIFY_SETUP, 0, 0, NULL, 0, fd);
	c->notify = map;
	c->notify_own = true;
	close(fd);
	return r ? -1 : 0;
}

/* ---- the control page --------------------------------------------------- */

static struct ualg_control *control;
static int control_fd = -1;

void control_publish(void)
{
	if (!control)
		return;
	/* Only ever forward, whichever thread replies first. */
	const uint32_t gen = ualg_registry_gen();
	uint32_t was = atomic_load_explicit(&control->gen, memory_order_relaxed);
	while ((int32_t)(gen - was) > 0 &&
	       !atomic_compare_exchange_weak_explicit(&control->gen, &was, gen, memory_order_release,
						      memory_order_relaxed))
		;
}

int control_init(void)
{
	void *map;
	int fd = ualg_memfd_create_published("ualg-control", UALG_CONTROL_SIZE, &map);
	if (fd < 0)
		return fd;
	control = map;
	atomic_store_explicit(&control->magic, UALG_CONTROL_MAGIC, memory_order_relaxed);
	atomic_store_explicit(&control->gen, ualg_registry_gen(), memory_order_release);
	control_fd = fd;
	return 0;
}

void control_close(void)
{
	if (control)
		atomic_store_explicit(&control->magic, 0, memory_order_release);
}

int control_setup(struct conn *c, size_t len)
{
	if (ualg_decode_empty(len))
		return -1;
	/* Without a page, programs ask algd at every bind(). */
	const int r = control_fd < 0 ? -EOPNOTSUPP : 0;
	return conn_reply(c, UALG_MSG_CONTROL_SETUP, 0, r, NULL, 0, control_fd) ? -1 : 0;
}
