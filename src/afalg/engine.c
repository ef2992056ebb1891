/* libualg-engine.so: the AF_ALG layer and the core inside the calling
 * process (engine.h).  The core's registry is not thread-safe, so what
 * creates or frees transforms runs under one lock here; the data calls run
 * under the shim's per-tree lock only. */
#include "engine.h"
#include "kabi.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <pthread.h>
#include <sys/socket.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_err;

static void init_once(void)
{
	ualg_selftest_defer();
	init_err = ualg_core_init();
}

static int engine_init(void)
{
	pthread_once(&once, init_once);
	return init_err;
}

static struct alg_sock *engine_bind(const char *type, const char *driver, int *err)
{
	struct alg_sock *sk = afalg_sock_new();
	if (!sk) {
		*err = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&registry);
	int r = afalg_bind(sk, type, 0, 0, driver, NULL);
	if (r)
		afalg_sock_put(sk);
	pthread_mutex_unlock(&registry);
	*err = -r;
	return r ? NULL : sk;
}

static int engine_setkey(struct alg_sock *tfm, const uint8_t *key, size_t len)
{
	struct afalg_optval v = { .data = key, .len = len, .optlen = (uint32_t)len };
	return afalg_setsockopt(tfm, KABI_SOL_ALG, ALG_SET_KEY, &v);
}

static int engine_setauthsize(struct alg_sock *tfm, unsigned authsize)
{
	struct afalg_optval v = { .optlen = authsize };
	return afalg_setsockopt(tfm, KABI_SOL_ALG, ALG_SET_AEAD_AUTHSIZE, &v);
}

static bool engine_busy(const struct alg_sock *tfm)
{
	return tfm->children != tfm->nokey_children;
}

static int engine_accept(struct alg_sock *sk, struct alg_sock **op)
{
	return afalg_accept(sk, op);
}

static bool engine_whole_buffer(const struct alg_sock *op)
{
	return afalg_recv_whole(op);
}

static void engine_put(struct alg_sock *sk)
{
	pthread_mutex_lock(&registry);
	afalg_sock_put(sk);
	pthread_mutex_unlock(&registry);
}

EXPORT const struct ualg_engine ualg_engine_v3 = {
	.init = engine_init,
	.bind = engine_bind,
	.setkey = engine_setkey,
	.setauthsize = engine_setauthsize,
	.busy = engine_busy,
	.accept = engine_accept,
	.info = afalg_engine_info,
	.send_ok = afalg_send_ok,
	.send = afalg_send,
	.recv = afalg_recv,
	.poll = afalg_poll,
	.whole_buffer = engine_whole_buffer,
	.export = afalg_export,
	.state_free = afalg_state_free,
	.put = engine_put,
};
