/* libualg-preload: the AF_ALG emulation inside an unmodified program.
 *
 * Internal interfaces between the shim's parts:
 *   fdtable.c  which fds are emulated AF_ALG sockets (O(1), lock-free reads)
 *   client.c   request/reply transactions with algd
 *   cmsg.c     af_alg_cmsg_send()'s parsing of control messages
 *   interpose.h  the interposed libc functions (next.c, socket.c, ...) and
 *              the per-kind operations of an emulated socket (struct afd_ops)
 */
#ifndef UALG_SHIM_H
#define UALG_SHIM_H

#include "kabi.h"
#include "proto.h"
#include "status.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* The salg_type a socket is bound to, as a number. */
enum afd_alg {
	ALG_TYPE_NONE,		/* not bound */
	ALG_TYPE_HASH, ALG_TYPE_SKCIPHER, ALG_TYPE_AEAD, ALG_TYPE_RNG,
	ALG_TYPE_AKCIPHER, ALG_TYPE_KPP, ALG_TYPE_COMPRESSION,
	ALG_TYPE_OTHER		/* a name algd knows and the shim need not */
};

/* What an emulated fd is; each kind has its operations (struct afd_ops,
 * interpose.h). */
enum afd_kind {
	AFD_TFM,		/* an AF_ALG transform socket */
	AFD_OP,			/* an accept()ed operation socket */
	AFD_RFC_TFM,		/* RFC mode (rfc.c): a SOCK_STREAM transform socket */
	AFD_RFC_OP,		/* RFC mode: its op socket */
	AFD_NETLINK,		/* NETLINK_CRYPTO */
	/* Sockets algd has not seen yet (local.c): a transform socket bound
	 * by what algd published, and the op sockets accepted from it.  They
	 * become AFD_TFM and AFD_OP when they are shared. */
	AFD_LOCAL_TFM,
	AFD_LOCAL_OP,
};
struct afd_ops;

/* One emulated socket; every fd that refers to it (dup) shares it.
 * Entries are never freed, only recycled (fdtable.c), so that refs can be
 * tried on one another thread just dropped. */
/* What algd knows of a connection's opener (SO_PEERCRED, SO_PEERGROUPS). */
#define POOL_GROUPS_MAX 16
struct pool_creds {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[POOL_GROUPS_MAX];
};

struct afd {
	/* References: each fd in the table, and each call in progress
	 * (afd_get); the last afd_put() releases the socket. */
	atomic_uint refs;
	struct afd *free_next;	/* on the free list */
	/* The kind's operations: atomic, for a local socket becomes an algd
	 * one while other threads use it (local.c). */
	const struct afd_ops *_Atomic ops;
	pthread_mutex_t lock;	/* the connection's frames (client.c) */
	pthread_cond_t cond;	/* a reply was taken, or a request ended */
	uint16_t expect[3];	/* the reply type each class in flight waits for */
	bool peeking;		/* a thread sleeps in a blocking peek at the next reply */
	/* Hash sends written behind (client.c) that no later reply has
	 * shown done yet, and the first error one of them answered. */
	unsigned behind;
	int behind_err;
	unsigned owed;		/* of those, replies to requests sent ahead (client.c) */
	/* An op socket whose ACCEPT_HERE went ahead (local.c): its token is
	 * DESCRIBE's to give, before another process needs it. */
	bool token_owed;
	/* client_key_epoch() when a send on this socket last succeeded
	 * waiting for its reply, + 1; 0: none did (client.c). */
	unsigned proven;
	/* As proven, but only once a send on this socket was seen to succeed
	 * (its reply, or a reply after it went behind): writes are gathered
	 * in the program from then on (client_gather()), never on a fresh
	 * socket, whose gathered bytes a vfork() child's exec would flush
	 * where the child's memory is not the parent's (valgrind's vfork). */
	unsigned gather_ok;
	/* A hash whose message starts with key material (ENGINE's msg_key_*),
	 * and whether a MSG_MORE send was made on it: client.c's write-behind. */
	uint8_t msg_key_len, msg_key_clear;
	atomic_bool more_seen;
	/* A cipher op socket algd serves with a shadow here (local.c) that
	 * no send was made on yet: its first may go behind where the shadow
	 * says it would succeed (alg_io.c). */
	atomic_bool fresh;
	unsigned gen;		/* client_gen() when made: shared by no other process until it moves */
	/* From the kind (afd_set_kind), for the parts that ask. */
	bool op;		/* an accept()ed operation socket */
	bool rfc;		/* RFC mode (rfc.c): a SOCK_STREAM transform socket or its op */
	enum afd_alg type;	/* salg_type once bound (afd_set_type) */
	int nl_peer;		/* NETLINK_CRYPTO: our end of the pair, else -1 */
	int sndbuf;		/* sk_sndbuf as SO_SNDBUF set it; 0: not set */
	/* The payload area for large transfers (shm.c): set up once, used
	 * only by the process that set it up, one transfer at a time. */
	atomic_int shm_state;	/* SHM_NONE, SHM_BUSY (being set up), SHM_READY, SHM_NEVER */
	pthread_mutex_t shm_lock;	/* held from filling the area to emptying it */
	uint8_t *shm;
	size_t shm_size;
	pid_t shm_pid;
	/* algd's reply counter for this connection (UALG_MSG_NOTIFY_SETUP),
	 * mapped on the first data call: a reply is waited for on memory
	 * first.  notify_state: NOTIFY_NONE, _BUSY, _READY, _NEVER. */
	_Atomic uint32_t *notify;
	atomic_int notify_state;
	bool notify_in_fast;	/* the counter is the fast page's (FAST_SETUP gave both) */
	/* An op socket's shared request page (fast.c), mapped on its
	 * first data call: fast_state as notify_state; fast_seq, the last
	 * request posted on it. */
	struct ualg_fast *fast;
	atomic_int fast_state;
	uint32_t fast_seq;
	atomic_uint data_calls;	/* sends and receives so far (client.c: the pages wait for a few) */
	/* A hash op socket's small MSG_MORE writes not sent yet (client_gather()). */
	uint8_t *gather;
	size_t gather_len;
	/* O_NONBLOCK of the open file as this process last set or read it
	 * (-1: not known yet), so that a call need not ask the kernel. */
	atomic_int nonblock;
	/* The in-process engine (inproc.c): a transform socket's key and
	 * twin; an op socket served in this process. */
	struct inproc_tfm *ipt;
	struct inproc_op *ipo;
	/* An op socket algd serves, accepted from a local transform socket
	 * (local.c): that transform, and the shadow op socket of its twin
	 * that stands for this one there (inproc_shadow()). */
	struct inproc_tfm *spt;
	struct alg_sock *shadow;
	/* Op sockets: the token that names it to algd (proto.h, ATTACH).
	 * The process that accepted it (owner) talks on the fd itself; any
	 * other, a fork child or a program exec()ed with the fd, on a channel
	 * of its own (client.c): chan_fd, made by chan_pid, the socket
	 * chan_ino while it is still ours. */
	bool has_token;
	uint8_t token[UALG_TOKEN_BYTES];
	pid_t owner;
	pid_t chan_pid;
	int chan_fd;
	ino_t chan_ino;
	/* An op socket that is a connection this process made (local.c),
	 * kept for the next one when closed (pool.c): the credentials it
	 * was made with, and its duplicate from close() until released. */
	atomic_bool poolable;
	struct pool_creds creds;
	int pool_fd;
};

/* fd's socket with a reference the caller drops with afd_put(), or NULL
 * when fd is not ours.  While the reference is held the entry stays this
 * socket's, whatever another thread closes. */
struct afd *afd_get(int fd);
void afd_put(struct afd *a);
/* The same for the calls that move data, without an atomic
 * read-modify-write (hazard.c): fd's socket, held until afd_leave(hold),
 * or NULL when fd is not ours. */
struct afd_hold {
	struct afd *a;
	bool hazard;		/* held by the thread's slot, not counted */
};
struct afd *afd_enter(int fd, struct afd_hold *hold);
void afd_leave(struct afd_hold *hold);
void afd_leave_cleanup(void *hold);
/* Whether fd is ours at this instant (no reference: nothing to use). */
bool afd_is_ours(int fd);
bool afd_any(void);	/* whether this process has any emulated socket */
/* A new socket of that kind on fd, with a reference for the caller
 * (afd_put); NULL: no memory. */
struct afd *afd_track(int fd, enum afd_kind kind);
void afd_set_kind(struct afd *a, enum afd_kind kind);	/* once known (inherit.c, rfc.c) */
void afd_set_type(struct afd *a, const char *salg_type);	/* at bind */
void afd_share(int newfd, struct afd *a);	/* dup */
void afd_untrack(int fd);
/* Makes every fd of a refer to newfd's open file instead (dup3), keeping
 * each fd's close-on-exec flag and the old file's O_NONBLOCK: 0 or
 * -errno.  The caller closes newfd. */
int afd_replace_file(struct afd *a, int newfd);
/* An fd of the op socket served by ipo (inproc.c), or -1: a scan, for
 * fork and exec only. */
int afd_find_fd_of_ipo(const struct inproc_op *ipo);
/* Calls fn for every fd of ours, holding a reference (a scan: fork and
 * exec only). */
void afd_for_each(void (*fn)(int fd, struct afd *a));

/* Real libc entry points, resolved once. */
struct real_fns {
	int (*socket)(int, int, int);
	int (*close)(int);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	int (*fcntl)(int, int, ...);
	int (*bind)(int, const struct sockaddr *, socklen_t);
	int (*setsockopt)(int, int, int, const void *, socklen_t);
	int (*getsockopt)(int, int, int, void *, socklen_t *);
};
extern struct real_fns real;

/* /dev/crypto (devcrypto.c): ioctl returns false when fd is not ours. */
int devcrypto_after_open(int r, int dirfd, const char *path, int flags);
bool devcrypto_ioctl(int fd, unsigned long cmd, void *arg, int *ret);
void devcrypto_close(int fd);
void devcrypto_dup(int oldfd, int newfd);
void shim_resolve(void);

/* A transaction: sends a request frame from parts, waits for its reply.
 * Returns the reply's result (>= 0 or -errno); -ECONNRESET if algd went
 * away.  Reply data lands in rbody; the received data length is in
 * *rlen, reply flags in *rflags, a passed fd in *rfd. */
struct xact {
	uint16_t type;
	const struct iovec *parts;
	int nparts;
	const struct iovec *rbody;
	int nrbody;
	size_t rlen;
	uint16_t rflags;
	int rfd;
	bool want_fd, cloexec;
	size_t data_len;	/* send/receive: its bytes, for the reply's poll window */
	/* A hash SEND that may be written behind: its head, which
	 * client_xact() marks UALG_SEND_QUIET when it does. */
	struct ualg_send *behind;
	/* The send ends a message that holds the key material its hash
	 * needs (afd's msg_key_*): it too may go behind.  checked: a cipher
	 * socket's first send, whole in this frame, that its shadow says
	 * succeeds (alg_io.c): it may go behind. */
	bool msg_ok, checked;
	/* A set-up request whose answer is known (client.c, "sending
	 * ahead"): sent without waiting for its reply when nothing else is
	 * in flight; client_xact() then returns 0. */
	bool ahead;
	bool peeking;		/* recv_reply(): this call's thread is a->peeking's */
	bool chan;		/* on this process's channel, not the fd (client.c) */
};
int client_xact(struct afd *a, int fd, struct xact *x);
/* A new connection to algd (client_connect()); its HELLO sent ahead
 * (*owed true) once this process has talked with algd, for
 * client_owe_hello() on the socket made of it. */
int client_connect_ahead(int type_flags, bool *owed);
void client_owe_hello(struct afd *a);
/* ATTACH or ATTACH_TFM (type) of the op socket token names, on fd, a
 * fresh connection: algd's answer, or -errno. */
int client_attach(int fd, uint16_t type, const uint8_t token[UALG_TOKEN_BYTES]);
/* An op socket accepted ahead (ACCEPT_HERE, local.c): its token comes
 * from DESCRIBE once another process may need it (client_settle_all(),
 * client_learn_token()). */
void client_owe_token(struct afd *a);
int client_learn_token(struct afd *a, int fd);
/* The inode of fd's socket, 0 when fd is none: whether an fd the shim
 * keeps (a channel, a kept connection) is still that socket, or a number
 * the program closed and reused. */
ino_t client_sock_ino(int fd);
/* This process's pid, kept across fork() without a system call. */
pid_t client_self(void);
/* Running in a vfork() child (the parent's memory, not its fd table),
 * which must leave the parent's sockets as they are. */
bool client_in_vfork_child(void);
/* An op socket's token, from ACCEPT's reply or DESCRIBE's (owner: the pid
 * that talks on the fd itself, 0 none). */
void client_set_token(struct afd *a, const uint8_t token[UALG_TOKEN_BYTES], pid_t owner);
/* handon.c: the environment for a new program, envp with $UALG_CHANNELS
 * naming this program's op sockets it inherits (malloc()ed; NULL: envp
 * as it is); and, in the new program, the token the old one gave fd. */
char **handon_env(char *const envp[]);
bool handon_token(int fd, uint8_t token[UALG_TOKEN_BYTES]);
/* Gathers a small MSG_MORE write on a hash op socket served by algd, to go
 * with the socket's next request as one send (written behind, as a hash
 * send whose success needs no reply): len bytes from data, or through copy
 * (0, or -EFAULT: nothing taken).  False when the socket does not gather
 * now (the caller sends as usual).  client_gather_drop() frees the buffer
 * when the socket goes. */
bool client_gather(struct afd *a, const void *data, size_t len,
		   int (*copy)(void *ctx, uint8_t *dst, size_t n), void *ctx);
void client_gather_drop(struct afd *a);
/* Closes this process's channel of a, if it made one. */
void client_drop_channel(struct afd *a);
/* pthread_atfork() from the shim's constructor. */
void client_init(void);
/* Sends one request frame, waiting for room even on a non-blocking
 * socket (the frame is small and algd drains it at once): 0, or -errno
 * (-ECONNRESET when algd is gone). */
int client_send(int fd, uint16_t type, const struct iovec *parts, int nparts);
/* Asks algd for a shared page (NOTIFY_SETUP, FAST_SETUP) and maps it
 * (checked sealed and of size bytes): NULL when refused or unmappable;
 * the reply's result in *result when asked. */
void *client_page(struct afd *a, int fd, uint16_t type, size_t size, int *result);
/* Spins until *word moves from before or the reply window for data_len
 * bytes passed ($UALG_POLL_US): no system call. */
void client_spin(const _Atomic uint32_t *word, uint32_t before, size_t data_len);

/* fast.c: requests on an op socket's shared page (struct ualg_fast).
 * For a SEND or RECV of an op socket of this process (client.c decides),
 * fast_setup() maps it once per socket (before a->lock is taken), where
 * algd offers one; fast_usable() says whether the page is there and x's
 * frame and its reply fit it; fast_xact() sends x and takes its reply as
 * ualg_frame_recv() would (with a->lock held and no other request in
 * flight), or returns FAST_DECLINED when x is for the socket: the
 * caller's data cannot be read (nothing was sent: the socket reports it),
 * or algd did not serve x because it would wait. */
void fast_setup(struct afd *a, int fd);
bool fast_usable(const struct afd *a, const struct xact *x);
ssize_t fast_xact(struct afd *a, int fd, const struct xact *x, struct ualg_hdr *h);
void fast_forget(struct afd *a);
enum { NOTIFY_NONE, NOTIFY_BUSY, NOTIFY_READY, NOTIFY_NEVER };
void client_forget(struct afd *a);
/* Takes every reply still owed to a send written behind (client.c), before
 * a fork or an exec shares the connections. */
void client_settle_all(void);
/* Setting keys moves the epoch; an op socket whose ACCEPT was sent at
 * epoch E may write behind from its first send (client.c). */
unsigned client_key_epoch(void);
void client_accepted(struct afd *op, unsigned epoch, const struct ualg_engine_info *e);
/* Before close(): settles requests sent ahead still unconfirmed. */
void client_before_close(int fd, struct afd *a);
/* Before fork(): settles, and makes every socket so far a shared one. */
void client_before_fork(void);
unsigned client_gen(void);	/* the socket's last fd here closed */
/* A blocking system call made a pthread cancellation point, as the libc
 * call it stands for is. */
long shim_cancellable(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
/* Connects a new transform socket to algd (blocking, after HELLO). */
int client_connect(int type_flags);

/* pool.c: connections kept for the next op socket (UALG_ENGINE=algd).
 * pool_creds_now(): this process's credentials, false with more groups
 * than a connection records.  pool_keep(), in close() of a's last fd:
 * duplicates fd when a may be kept.  pool_put(), when a is released: sends
 * RESET on that duplicate and keeps it, or closes it.  pool_take(): a kept
 * connection as a new fd with accept()'s flags, and its opener's
 * credentials; -1: none.  pool_drop_all() closes them. */
bool pool_creds_now(struct pool_creds *c);
/* A connection for an op socket algd serves: a kept one when reuse and
 * there is one, else a new one (client_connect_ahead(): fd, or -errno,
 * and owed); poolable: whether it may be kept when closed. */
struct pool_conn {
	int fd;
	bool owed, reused, poolable;
	struct pool_creds creds;
};
void pool_connect(int type_flags, bool reuse, struct pool_conn *c);
void pool_keep(int fd, struct afd *a);
void pool_put(struct afd *a);
int pool_take(int type_flags, struct pool_creds *creds);
void pool_drop_all(void);
/* Before an exec or a spawn: a new program may inherit any socket alive
 * now, which is then never kept. */
void pool_before_sharing(void);
void pool_init(void);

/* sysmode.c: whether AF_ALG and NETLINK_CRYPTO sockets are emulated in
 * this process (ualg-run: yes; system-wide preload: as preload.conf says),
 * and the algd socket they connect to. */
bool shim_active(void);
const char *shim_socket_path(void);
/* A module installed beside the shim, dlopen()ed with RTLD_LOCAL. */
void *shim_dlopen_beside(const char *file);
bool shim_devcrypto_enabled(void);	/* the mode is not off */

/* shm.c: transfers of at least SHM_MIN bytes on an op socket go through
 * its payload area.  shm_acquire() returns the area, locked for this
 * transfer (set up on first use), or NULL: use frames.  shm_release()
 * unlocks it.  shm_forget() unmaps it when the socket's last fd here
 * closes. */
#define SHM_MIN (16u * 1024u)
enum { SHM_NONE, SHM_BUSY, SHM_READY, SHM_NEVER };
uint8_t *shm_acquire(int fd, struct afd *a);
void shm_release(struct afd *a);
void shm_forget(struct afd *a);

/* Parsed control data of one sendmsg(), as af_alg_cmsg_send(). */
struct shim_ctl {
	bool present, invalid, has_iv, has_op;
	uint32_t op, assoclen, ivlen;
	uint8_t iv[UALG_IV_MAX];
};
/* Parses size bytes of control data, already copied in as the kernel
 * does (kabi_msg_import(): its ENOBUFS and EFAULT come first); cmsgs the
 * protocol rejects set ctl->invalid. */
void cmsg_parse(const uint8_t *buf, size_t size, struct shim_ctl *ctl);

/* NETLINK_CRYPTO (netlink.c): answers the requests in one sendmsg(). */
ssize_t netlink_send(struct afd *a, const void *data, size_t len);

/* The poll mask of an emulated socket, as sock_poll() gives it (algd
 * knows the state), limited to events plus POLLERR and POLLHUP. */
short shim_alg_revents(int fd, struct afd *a, short events);

/* epoll.c: registrations of emulated sockets in epoll sets; called by
 * close() so that a closed fd leaves every set, as its last close does. */
void epoll_forget(int fd);

/* read()/write() of an emulated socket over iovecs (AIO, aio.c). */
ssize_t shim_op_read(int fd, struct afd *a, const struct kabi_iov *t);
ssize_t shim_op_write(int fd, struct afd *a, const struct kabi_iov *t);

/* rfc.c: RFC mode.  rfc_enabled(): the program opted in
 * (UALG_RFC=1); then socket(AF_ALG, SOCK_STREAM, 0) is rfc_socket(). */
bool rfc_enabled(void);
int rfc_socket(int type, int protocol);
int rfc_listen(int fd, struct afd *a);
int rfc_setsockopt(int fd, struct afd *a, int level, int optname, const void *val, socklen_t len);
ssize_t rfc_send(int fd, struct afd *a, const struct iovec *iov, size_t niov,
		 const struct shim_ctl *ctl, int flags);
ssize_t rfc_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, int flags);

/* inproc.c: the in-process engine.  The shim tells it what the program
 * did to a transform socket (bind, key by value or by reference, tag
 * length); after an accept() it asks algd whether the new op socket is
 * served here.  The data calls return INPROC_MOVED when the socket went
 * to algd meanwhile (fork in another thread): the caller serves the call
 * as for any algd socket. */
void inproc_init(void);
/* A transform socket's bind() (local.c keys what algd said with it). */
struct shim_bind {
	char type[KABI_SALG_TYPE_LEN];
	uint32_t feat, mask;
	char name[UALG_BIND_NAME_MAX];
};
/* a bound through algd to b, with algd's control generation before the
 * bind (gen_known false: none mapped). */
void inproc_bound(struct afd *a, const struct shim_bind *b, bool gen_known, uint32_t gen);
/* A key set on a's transform (NULL: by reference), key_gen algd's after it. */
void inproc_keyed(struct afd *a, const uint8_t *key, size_t len, uint32_t key_gen);
void inproc_authsize(struct afd *a, unsigned authsize);
bool inproc_tfm_busy(struct afd *a);
/* a accepted on parent, with algd's verdict on serving it here (NULL: none). */
void inproc_accepted(struct afd *parent, struct afd *a, const struct ualg_engine_info *verdict);
ssize_t inproc_send(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		    const struct shim_ctl *ctl, int flags);
ssize_t inproc_recv(int fd, struct afd *a, const struct iovec *iov, size_t niov, size_t total,
		    int flags, int *msg_flags);
int inproc_revents(struct afd *a, short events);	/* < 0: moved */
void inproc_sndbuf(struct afd *a, int bytes);
void inproc_handover_all(void);
void inproc_handover_of(struct afd *a);	/* a's tree only */
void inproc_forget(struct afd *a);
/* Whether this thread may keep a transform socket here (not from inside
 * the engine), and whether the program serves op sockets itself
 * ($UALG_ENGINE). */
bool inproc_may_hold(void);
bool inproc_wanted(void);
/* For local.c: a local transform socket bound to b with the driver algd
 * named (verdict), built here: 0, -EBUSY (op sockets live, as
 * alg_bind()), or another -errno (algd should decide instead). */
int inproc_bind_local(struct afd *a, const struct shim_bind *b,
		      const struct ualg_engine_info *verdict);
bool inproc_bound_local(struct afd *a);	/* bound by inproc_bind_local() */
int inproc_setkey_local(struct afd *a, const uint8_t *key, size_t len);
int inproc_authsize_local(struct afd *a, unsigned authsize);
/* A new op socket op accepted here from parent (a local transform socket
 * or, a hash's clone, a local op socket): 0 or -errno. */
int inproc_accept_local(struct afd *parent, struct afd *op);
/* The transform tree of a (transform or op socket), to compare; NULL: none. */
const void *inproc_tree(const struct afd *a);
/* Sends BIND, the key by value and the tag length of member's transform
 * on via's fresh connection fd, as the program set them: 0 or -errno;
 * ahead, without waiting (client.c, "sending ahead"). */
int inproc_replay(struct afd *via, int fd, const struct afd *member, bool ahead);
/* op, an op socket algd accepted, stands in from's transform tree (from: a
 * local transform socket, or an op socket that stands in one) for the
 * kernel's count of op sockets: 0, -EAGAIN where it would be accepted
 * before the key, or -errno. */
int inproc_shadow(const struct afd *from, struct afd *op);
/* What algd's ACCEPT reply would say of such an op socket's transform. */
void inproc_shadow_info(const struct afd *op, struct ualg_engine_info *out);
/* Whether a sendmsg() of len bytes with ctl and flags, the first on such
 * an op socket, succeeds at once in algd: the shadow's checks. */
bool inproc_shadow_send_ok(const struct afd *op, const struct shim_ctl *ctl, size_t len, int flags);

/* local.c: sockets this process has not shared, which make no round trip
 * to algd.  local_socket(): a new local transform socket, or false when
 * the process cannot keep one yet (false: the caller connects to algd).
 * local_control(): maps algd's control page once, on a connection to algd
 * (fd), and gives its generation now (false: none).  local_learn(): what
 * ACCEPT answered for a transform bound to b under gen.  local_share():
 * the socket (with its whole tree) becomes an algd one, before a call only
 * algd answers; local_share_all(): every one, before fork() or exec. */
bool local_socket(int type, int *ret);	/* true: *ret is the fd or -errno */
bool local_control(struct afd *a, int fd, uint32_t *gen);
/* Whether algd's control page is mapped and live. */
bool local_control_ready(void);
/* Whether algd bound address b under the page's generation gen (the one
 * now): a bind of it now is known to succeed, and may be sent ahead
 * (client.c); local_bind_learn() records one that did. */
bool local_bind_known(const struct shim_bind *b, uint32_t gen);
void local_bind_learn(const struct shim_bind *b, uint32_t gen);
void local_learn(const struct shim_bind *b, uint32_t gen, const struct ualg_engine_info *verdict);
int local_share(struct afd *a);
void local_share_all(void);
void local_forget(struct afd *a);
void local_init(void);	/* pthread_atfork() from the shim's constructor */
/* O_NONBLOCK on fd, a's: asked of the kernel once per socket (fdops.c). */
bool shim_nonblocking(int fd, struct afd *a);

/* inherit.c: adopts the algd connections a program inherited across
 * execve, which leaves the fd table empty (run once at load), and those a
 * recvmsg() on via received with SCM_RIGHTS from another process than
 * algd (its control data, as the kernel wrote it).  shim_before_passing(): the emulated sockets among the fds a
 * sendmsg() passes become algd's, with their state, first. */
void shim_adopt_inherited(void);
void shim_adopt_passed(int via, const struct msghdr *msg);
void shim_before_passing(const struct msghdr *msg);

/* Copies from the caller's memory, -EFAULT where it cannot be read. */
int copy_in(void *dst, const void *src, size_t len);
/* Copies to the caller's memory, -EFAULT where it cannot be written. */
int copy_out(void *dst, const void *src, size_t len);
/* The caller's memory for src/kabi's checks: copy_in and copy_out. */
extern const struct kabi_mem shim_user_mem;
/* -EFAULT unless the ends of buf are writable by the caller (with the
 * guard: every page of it). */
int probe_out(void *buf, size_t len);
/* -EFAULT unless every page of buf is readable. */
int probe_in(const void *buf, size_t len);
/* usermem.c: after this, the four above cost no system call (except under
 * valgrind). */
void usermem_guard_init(void);

#endif
