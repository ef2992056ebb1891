/* DPDK cryptodev devices as algd drivers (dpdk.h): EAL, the devices'
 * queue pairs and pools, and what happens when a device fails: every
 * driver of the device leaves lookups.  The drivers themselves are in
 * dpdk_register.c and the files dpdk_impl.h lists. */
#include "dpdk.h"
#include "dpdk_impl.h"
#include "log.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

bool algd_dpdk_built(void)
{
	return true;
}

struct dev dpdk_devs[MAX_DEVS];
unsigned dpdk_ndevs;
static pthread_t registry_thread;

/* On the registry's thread: a failed device's drivers fail their
 * self-test state, so lookups pass them over, and the instances built on
 * them are unregistered (those in use live on, their requests failing). */
static void mark_failed(struct dev *d)
{
	if (d->marked)
		return;
	d->marked = true;
	algd_log(LOG_ERR, "dpdk: device %s failed; its drivers leave lookups", d->name);
	for (unsigned i = 0; i < d->nalgs; i++) {
		d->algs[i]->selftest = UALG_SELFTEST_FAILED;
		ualg_alg_set_priority(d->algs[i], d->algs[i]->priority);
	}
}

void dpdk_check_failed(void)
{
	if (!pthread_equal(pthread_self(), registry_thread))
		return;
	for (unsigned i = 0; i < dpdk_ndevs; i++)
		if (atomic_load(&dpdk_devs[i].failed))
			mark_failed(&dpdk_devs[i]);
}

void dpdk_device_failed(struct dev *d)
{
	atomic_store(&d->failed, true);
	dpdk_check_failed();
}

/* Configures and starts device id: one queue pair, its pools. */
static int dev_setup(struct dev *d)
{
	struct rte_cryptodev_info info;
	char pname[RTE_MEMPOOL_NAMESIZE];
	const int socket = rte_cryptodev_socket_id(d->id);

	rte_cryptodev_info_get(d->id, &info);
	d->sgl = info.feature_flags & RTE_CRYPTODEV_FF_IN_PLACE_SGL;
	d->oop = info.feature_flags & RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT;
	d->direct = !(info.feature_flags & RTE_CRYPTODEV_FF_HW_ACCELERATED);
	d->iova_va = rte_eal_iova_mode() == RTE_IOVA_VA;
	d->max_op = d->sgl ? (size_t)SEG_DATA * MAX_SEGS : SEG_DATA;
	struct rte_cryptodev_config conf = { .socket_id = socket, .nb_queue_pairs = 1 };
	if (rte_cryptodev_configure(d->id, &conf))
		return -1;
	snprintf(pname, sizeof(pname), "ualg_s%u", d->id);
	d->sess_pool = rte_cryptodev_sym_session_pool_create(pname, NB_SESSIONS,
		rte_cryptodev_sym_get_private_session_size(d->id), 0, 0, socket);
	snprintf(pname, sizeof(pname), "ualg_o%u", d->id);
	d->op_pool = rte_crypto_op_pool_create(pname, RTE_CRYPTO_OP_TYPE_SYMMETRIC, NB_OPS, 0,
					       UALG_MAX_IVSIZE, socket);
	snprintf(pname, sizeof(pname), "ualg_m%u", d->id);
	d->mbuf_pool = rte_pktmbuf_pool_create(pname, NB_MBUFS, 0, 0,
					       SEG_DATA + RTE_PKTMBUF_HEADROOM, socket);
	snprintf(pname, sizeof(pname), "ualg_x%u", d->id);
	d->ext_pool = d->direct ? rte_pktmbuf_pool_create(pname, NB_MBUFS, 0, 0, 0, socket) : NULL;
	d->scratch = rte_zmalloc_socket("ualg_scratch", SCRATCH_SIZE, 64, socket);
	if (!d->sess_pool || !d->op_pool || !d->mbuf_pool || !d->scratch || (d->direct && !d->ext_pool))
		return -1;
	d->scratch_iova = rte_malloc_virt2iova(d->scratch);
	struct rte_cryptodev_qp_conf qp = { .nb_descriptors = NB_DESC, .mp_session = d->sess_pool };
	if (rte_cryptodev_queue_pair_setup(d->id, 0, &qp, socket) || rte_cryptodev_start(d->id))
		return -1;
	return (info.feature_flags & RTE_CRYPTODEV_FF_HW_ACCELERATED) ? PRIO_HW : PRIO_SW;
}

/* Splits the EAL arguments and adds algd's own: no telemetry socket and
 * no multi-process channel (threads that would serve sockets past the
 * sandbox), and one lcore, the first CPU algd may run on, unless the
 * arguments choose. */
#define EAL_ARGS_MAX 64

static int eal_args(const char *args, char *buf, size_t size, char **argv, const cpu_set_t *cpus,
		    char *lcore, size_t lsize)
{
	int argc = 0;
	bool cores = false;

	snprintf(buf, size, "%s", args);
	argv[argc++] = "algd";
	for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (argc >= EAL_ARGS_MAX - 6)
			return -1;
		cores |= !strcmp(t, "-l") || !strcmp(t, "-c") || !strncmp(t, "--lcores", 8);
		argv[argc++] = t;
	}
	argv[argc++] = "--no-telemetry";
	argv[argc++] = "--no-shconf";
	if (!cores) {
		int cpu = 0;
		while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, cpus))
			cpu++;
		snprintf(lcore, lsize, "%d", cpu < CPU_SETSIZE ? cpu : 0);
		argv[argc++] = "-l";
		argv[argc++] = lcore;
	}
	argv[argc] = NULL;
	return argc;
}

static bool wanted(const struct algd_config *cfg, const char *name, int *prio)
{
	if (!cfg->n_dpdk_devices)
		return true;
	for (unsigned i = 0; i < cfg->n_dpdk_devices; i++)
		if (!strcmp(cfg->dpdk_devices[i].name, name)) {
			if (cfg->dpdk_devices[i].priority >= 0)
				*prio = cfg->dpdk_devices[i].priority;
			return true;
		}
	return false;
}

void algd_dpdk_start(const struct algd_config *cfg)
{
	static char buf[CONFIG_DPDK_EAL_MAX];
	static char *argv[EAL_ARGS_MAX];
	static char lcore[16];
	cpu_set_t cpus;

	if (!cfg->dpdk_eal[0])
		return;
	registry_thread = pthread_self();
	/* EAL pins the calling thread to its main lcore: algd's threads keep
	 * the CPUs they had. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		CPU_ZERO(&cpus);
	int argc = eal_args(cfg->dpdk_eal, buf, sizeof(buf), argv, &cpus, lcore, sizeof(lcore));
	if (argc < 0) {
		algd_log(LOG_ERR, "dpdk: too many EAL arguments; starting without DPDK's devices");
		return;
	}
	/* EAL's threads (interrupts, alarms) start with every signal
	 * blocked: SIGTERM, SIGINT and SIGHUP reach algd's signalfd, not a
	 * thread whose default action ends the process. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	const int eal = rte_eal_init(argc, argv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (CPU_COUNT(&cpus))
		sched_setaffinity(0, sizeof(cpus), &cpus);
	if (eal < 0) {
		algd_log(LOG_ERR, "dpdk: EAL did not start: %s; starting without DPDK's devices",
			 rte_strerror(rte_errno));
		return;
	}
	const uint8_t n = rte_cryptodev_count();
	for (uint8_t id = 0; id < n && dpdk_ndevs < MAX_DEVS; id++) {
		const char *name = rte_cryptodev_name_get(id);
		int prio = -1;
		if (!name || !wanted(cfg, name, &prio))
			continue;
		struct dev *d = &dpdk_devs[dpdk_ndevs];
		d->id = id;
		snprintf(d->name, sizeof(d->name), "%s", name);
		for (char *s = d->name; *s; s++)
			if (!(*s == '_' || *s == '-' || *s == '.' || *s == ':' ||
			      (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
				*s = '_';
		pthread_mutex_init(&d->lock, NULL);
		pthread_cond_init(&d->cond, NULL);
		d->tail = &d->head;
		const int kind_prio = dev_setup(d);
		if (kind_prio < 0) {
			algd_log(LOG_ERR, "dpdk: device %s did not start: %s", d->name, rte_strerror(rte_errno));
			continue;
		}
		dpdk_ndevs++;
		if (prio < 0)
			prio = kind_prio;
		const unsigned count = dpdk_register_dev(d, prio);
		algd_log(LOG_NOTICE, "dpdk: device %s: %u drivers at priority %d, %s", d->name, count, prio,
			 d->direct ? (d->oop ? "on the requests' buffers (in and out of place)"
					     : "on the requests' buffers (in place)")
				   : "data copied through its mbufs");
	}
	for (unsigned i = 0; i < cfg->n_dpdk_devices; i++) {
		bool found = false;
		for (unsigned k = 0; k < dpdk_ndevs; k++)
			found |= !strcmp(dpdk_devs[k].name, cfg->dpdk_devices[i].name);
		if (!found)
			algd_log(LOG_WARNING, "dpdk: no device %s", cfg->dpdk_devices[i].name);
	}
}

