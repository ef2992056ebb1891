/* intel-ipsec-mb drivers: sha1/sha224/sha256/sha384/sha512 and their hmac,
 * cbc(aes) and gcm(aes), through the library's job manager.
 *
 * The job manager's worth is multi-buffer: it runs up to 8 or 16
 * independent messages of one kind in the lanes of the vector unit.  A
 * single request, submitted and flushed at once, uses one lane and is
 * slower than OpenSSL, so these drivers sit below OpenSSL's priority and
 * are chosen by driver name ("sha256-ipsecmb"); the ring batches their
 * requests through the many-request operations (crypto.h).
 *
 * One IMB_MGR per thread (the registry's, each ring worker's): a manager
 * holds the jobs in flight and is not thread-safe, while a transform is
 * used by one thread at a time but may move between threads.  Each call
 * drains the manager before returning, so no job outlives its request.
 *
 * This file: the thread's job manager, the jobs and the registration.
 * The hashes are in ipsecmb_hash.c, cbc(aes) and gcm(aes) in ipsecmb_aes.c. */
#include "ipsecmb.h"
#include "../backend.h"
#include "others.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MODULE "ipsecmb"

/* ---- the thread's job manager ------------------------------------------ */

static pthread_key_t mgr_key;
static pthread_once_t mgr_once = PTHREAD_ONCE_INIT;
static int mgr_key_err;

static void mgr_free(void *m)
{
	free_mb_mgr(m);
}

static void mgr_key_make(void)
{
	mgr_key_err = pthread_key_create(&mgr_key, mgr_free);
}

/* What the drivers need: AES-NI and PCLMULQDQ at least (the library would
 * otherwise fall back to its slow software AES), and an SSE or better
 * code path. */
static bool mgr_usable(const IMB_MGR *m)
{
	const uint64_t need = IMB_FEATURE_AESNI | IMB_FEATURE_PCLMULQDQ;

	return m->used_arch >= IMB_ARCH_SSE && (m->features & need) == need;
}

IMB_MGR *ualg_ipsecmb_thread_mgr(void)
{
	pthread_once(&mgr_once, mgr_key_make);
	if (mgr_key_err)
		return NULL;
	IMB_MGR *m = pthread_getspecific(mgr_key);
	if (m)
		return m;
	m = alloc_mb_mgr(0);
	if (!m)
		return NULL;
	init_mb_mgr_auto(m, NULL);
	if (imb_get_errno(m) || !mgr_usable(m) || pthread_setspecific(mgr_key, m)) {
		free_mb_mgr(m);
		return NULL;
	}
	return m;
}

static void job_complete(const struct job_ops *ops, const IMB_JOB *j, const void *arg, int *res)
{
	const unsigned i = (unsigned)(uintptr_t)j->user_data;

	res[i] = j->status == IMB_STATUS_COMPLETED ? 0 : -EINVAL;
	if (ops->done)
		ops->done(j, arg, i);
}

/* Submits n jobs, then flushes: the library runs them in parallel lanes.
 * res[i] gets each one's 0 or -errno. */
int ualg_ipsecmb_run_jobs(const struct job_ops *ops, const void *arg, unsigned n, int *res)
{
	IMB_MGR *m = ualg_ipsecmb_thread_mgr();

	if (!m)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		IMB_JOB *j = IMB_GET_NEXT_JOB(m);
		memset(j, 0, sizeof(*j));
		ops->fill(j, arg, i);
		j->user_data = (void *)(uintptr_t)i;
		for (j = IMB_SUBMIT_JOB(m); j; j = IMB_GET_COMPLETED_JOB(m))
			job_complete(ops, j, arg, res);
	}
	for (IMB_JOB *j; (j = IMB_FLUSH_JOB(m));)
		job_complete(ops, j, arg, res);
	return 0;
}

int ualg_ipsecmb_run_one_job(const struct job_ops *ops, const void *arg)
{
	int res = -EINVAL;
	int r = ualg_ipsecmb_run_jobs(ops, arg, 1, &res);

	return r ? r : res;
}

/* The library reads through pointers even for empty inputs. */
const uint8_t ualg_ipsecmb_empty[16];

struct ualg_alg *ualg_ipsecmb_alloc(const char *name, const char *driver, enum ualg_alg_type type, int prio)
{
	struct ualg_alg *a = ualg_openssl_alloc(name, driver, type, prio);

	if (a)
		a->module = MODULE;
	return a;
}

/* ---- registration -------------------------------------------------------- */

/* Nothing is registered where the library cannot run well (no AES-NI):
 * the other drivers serve every one of these names. */
int ualg_ipsecmb_register(void)
{
	if (!ualg_backend_listing() && !ualg_ipsecmb_thread_mgr())
		return 0;
	int r = ualg_ipsecmb_register_hashes();
	if (!r)
		r = ualg_ipsecmb_register_cbc();
	if (!r)
		r = ualg_ipsecmb_register_gcm();
	return r;
}
