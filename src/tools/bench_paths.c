/* ualg-bench's paths: in-process OpenSSL, libualg (one request per round
 * trip, or batches), KABI_AF_ALG through libualg-preload (write or splice),
 * and /dev/crypto, each as a struct runner (see bench_paths.h). */
#include "bench_paths.h"
#include "bench_dpdk.h"
#include "kabi.h"
#include "proto.h"
#include "ualg_cryptodev.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <openssl/core_names.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK (64u * 1024u)	/* KABI_AF_ALG writes and splices, like libkcapi's */

const char *const path_names[P_COUNT] = {
	"inproc", "native-sync", "native-batch", "shim-write", "shim-splice", "devcrypto",
};
const char *bind_driver;
bool aead_decrypt;

static const char *bind_name(const struct alg_spec *a)
{
	return bind_driver ? bind_driver : a->name;
}

/* --decrypt and an AEAD: ciphertext and tag in, the plaintext out. */
static bool decrypting(const struct alg_spec *a)
{
	return aead_decrypt && a->tag;
}

const char *alg_label(const struct alg_spec *a)
{
	static char label[64];

	if (!decrypting(a))
		return a->name;
	snprintf(label, sizeof(label), "%s decrypt", a->name);
	return label;
}

static const uint8_t bench_key[64] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
};
static const uint8_t bench_iv[16] = { 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7 };

static void fill_pattern(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + 7);
}

size_t out_len(const struct runner *r)
{
	return r->alg->outlen ? r->alg->outlen : decrypting(r->alg) ? r->len : r->len + r->alg->tag;
}

/* ---- inproc: OpenSSL, contexts reused as a careful program would ------ */

int inproc_run(struct runner *r)
{
	int outl;
	size_t macl;

	if (r->md)
		return EVP_DigestInit_ex(r->md, NULL, NULL) && EVP_DigestUpdate(r->md, r->in, r->len) &&
		       EVP_DigestFinal_ex(r->md, r->out, NULL) ? 1 : -EIO;
	if (r->mac)
		return EVP_MAC_init(r->mac, NULL, 0, NULL) && EVP_MAC_update(r->mac, r->in, r->len) &&
		       EVP_MAC_final(r->mac, r->out, &macl, 64) ? 1 : -EIO;
	const bool dec = decrypting(r->alg);
	if (!EVP_CipherInit_ex2(r->cipher, NULL, NULL, bench_iv, !dec, NULL) ||
	    !EVP_CipherUpdate(r->cipher, r->out, &outl, r->in, (int)r->len))
		return -EIO;
	if (dec)
		return EVP_CIPHER_CTX_ctrl(r->cipher, EVP_CTRL_AEAD_SET_TAG, (int)r->alg->tag, r->in + r->len) &&
		       EVP_CipherFinal_ex(r->cipher, r->out + r->len, &outl) ? 1 : -EIO;
	if (r->alg->tag && (!EVP_CipherFinal_ex(r->cipher, r->out + r->len, &outl) ||
			    !EVP_CIPHER_CTX_ctrl(r->cipher, EVP_CTRL_AEAD_GET_TAG, (int)r->alg->tag, r->out + r->len)))
		return -EIO;
	return 1;
}

void inproc_done(struct runner *r)
{
	EVP_MD_CTX_free(r->md);
	EVP_MAC_CTX_free(r->mac);
	EVP_CIPHER_CTX_free(r->cipher);
	free(r->in);
	free(r->out);
}

/* Decryption's input: the pattern's ciphertext and tag, as an encryption
 * made them. */
static int inproc_ciphertext(struct runner *r)
{
	uint8_t *pt = malloc(r->len);
	int outl, ok = pt != NULL;

	if (ok) {
		fill_pattern(pt, r->len);
		ok = EVP_CipherInit_ex2(r->cipher, NULL, NULL, bench_iv, 1, NULL) &&
		     EVP_CipherUpdate(r->cipher, r->in, &outl, pt, (int)r->len) &&
		     EVP_CipherFinal_ex(r->cipher, r->in + r->len, &outl) &&
		     EVP_CIPHER_CTX_ctrl(r->cipher, EVP_CTRL_AEAD_GET_TAG, (int)r->alg->tag, r->in + r->len);
	}
	free(pt);
	return ok ? 0 : -EIO;
}

int inproc_setup(struct runner *r)
{
	const struct alg_spec *a = r->alg;
	r->in = malloc(r->len + a->tag);
	r->out = malloc(out_len(r) + a->tag);
	if (!r->in || !r->out)
		return -ENOMEM;
	fill_pattern(r->in, r->len);
	r->run = inproc_run;
	r->done = inproc_done;
	if (a->mac) {
		EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
		OSSL_PARAM p[] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)a->evp, 0),
				   OSSL_PARAM_construct_end() };
		r->mac = mac ? EVP_MAC_CTX_new(mac) : NULL;
		EVP_MAC_free(mac);
		return r->mac && EVP_MAC_init(r->mac, bench_key, a->keylen, p) ? 0 : -EIO;
	}
	if (a->outlen) {
		r->md = EVP_MD_CTX_new();
		return r->md && EVP_DigestInit_ex(r->md, EVP_get_digestbyname(a->evp), NULL) ? 0 : -EIO;
	}
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, a->evp, NULL);
	r->cipher = EVP_CIPHER_CTX_new();
	int ok = c && r->cipher && EVP_CipherInit_ex2(r->cipher, c, bench_key, bench_iv, 1, NULL);
	EVP_CIPHER_free(c);
	if (ok)
		EVP_CIPHER_CTX_set_padding(r->cipher, 0);
	return !ok ? -EIO : decrypting(a) ? inproc_ciphertext(r) : 0;
}

/* ---- native: libualg ------------------------------------------------- */

/* Request i's slot in the registered buffers: IV, then the data (with
 * room for a digest or tag), then a decryption's plaintext. */
static size_t slot_size(const struct runner *r)
{
	return 16 + r->len + 64 + (decrypting(r->alg) ? r->len : 0);
}

static uint8_t *slot(struct runner *r, unsigned i)
{
	return (uint8_t *)ualg_ring_buf(&r->ring) + (size_t)i * slot_size(r);
}

/* Requests run in place (the data becomes the output), except a
 * decryption's, which reads the ciphertext and tag an encryption left in
 * place and writes the plaintext past them. */
static void native_prep(struct runner *r, unsigned i)
{
	struct ualg_sqe *sqe = ualg_get_sqe(&r->ring);
	uint8_t *iv = slot(r, i), *data = iv + 16;

	if (r->alg->outlen)
		ualg_prep_hash(&r->ring, sqe, r->tfm, data, r->len, data + r->len);
	else if (r->decrypt)
		ualg_prep_aead_decrypt(&r->ring, sqe, r->tfm, data, 0, r->len + r->alg->tag, data + r->len + 64, iv);
	else if (r->alg->tag)
		ualg_prep_aead_encrypt(&r->ring, sqe, r->tfm, data, 0, r->len, data, iv);
	else
		ualg_prep_encrypt(&r->ring, sqe, r->tfm, data, data, r->len, iv);
	ualg_sqe_set_data64(sqe, i);
}

static int native_run(struct runner *r)
{
	struct ualg_cqe *cqes[64];

	for (unsigned i = 0; i < r->per_call; i++)
		native_prep(r, i);
	int n = ualg_submit_and_wait(&r->ring, r->per_call);
	if (n < 0)
		return n;
	unsigned got = ualg_peek_batch_cqe(&r->ring, cqes, 64);
	int err = 0;
	for (unsigned i = 0; i < got; i++)
		if (cqes[i]->res < 0)
			err = cqes[i]->res;
	ualg_cq_advance(&r->ring, got);
	return got != r->per_call ? -EIO : err ? err : (int)got;
}

/* Reaps up to n completions; returns how many, or the first error. */
static int native_reap(struct runner *r, unsigned n)
{
	struct ualg_cqe *cqes[64];
	unsigned got = ualg_peek_batch_cqe(&r->ring, cqes, n < 64 ? n : 64);
	int err = 0;

	for (unsigned i = 0; i < got; i++)
		if (cqes[i]->res < 0)
			err = cqes[i]->res;
	ualg_cq_advance(&r->ring, got);
	return err ? err : (int)got;
}

/* Batched and pipelined: the slots are two halves; one is in flight in
 * algd while the other is prepared and submitted, as a streaming
 * application would keep its ring busy. */
static int native_batch_run(struct runner *r)
{
	const unsigned half = r->per_call;

	for (unsigned i = 0; i < half; i++)
		native_prep(r, r->group * half + i);
	r->group ^= 1;
	r->inflight += half;
	int n = ualg_submit_and_wait(&r->ring, r->inflight - half);
	if (n < 0)
		return n;
	int got = native_reap(r, r->inflight - half);
	if (got > 0)
		r->inflight -= (unsigned)got;
	return got;
}

static void native_done(struct runner *r)
{
	free(r->out);
	ualg_ring_exit(&r->ring);
}

static int native_setup(struct runner *r, unsigned depth)
{
	int err = ualg_ring_init(&r->ring, 128, slot_size(r) * depth);
	if (err)
		return err;
	r->per_call = depth;
	r->run = native_run;
	r->done = native_done;
	r->tfm = ualg_ring_open_tfm(&r->ring, r->alg->type, bind_name(r->alg), NULL);
	if (r->tfm < 0)
		return r->tfm;
	if (r->alg->keylen && (err = ualg_ring_setkey(&r->ring, r->tfm, bench_key, r->alg->keylen)))
		return err;
	for (unsigned i = 0; i < depth; i++) {
		memcpy(slot(r, i), bench_iv, 16);
		fill_pattern(slot(r, i) + 16, r->len);
	}
	/* Ciphers run in place: keep the first output to compare against. */
	r->in = slot(r, 0) + 16;
	r->out = malloc(out_len(r));
	if (!r->out)
		return -ENOMEM;
	err = native_run(r);
	/* Decryptions: of what these encryptions made. */
	if (err >= 0 && decrypting(r->alg)) {
		r->decrypt = true;
		err = native_run(r);
	}
	memcpy(r->out, r->alg->outlen ? r->in + r->len : r->decrypt ? r->in + r->len + 64 : r->in, out_len(r));
	if (depth > 1) {
		r->per_call = depth / 2;
		r->run = native_batch_run;
	}
	return err < 0 ? err : 0;
}

/* ---- shim: AF_ALG through libualg-preload ---------------------------- */

static int alg_open(struct runner *r)
{
	struct sockaddr_alg sa = { .salg_family = KABI_AF_ALG };

	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", r->alg->type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", bind_name(r->alg));
	r->tfmfd = socket(KABI_AF_ALG, SOCK_SEQPACKET, 0);
	if (r->tfmfd < 0 || bind(r->tfmfd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	if (r->alg->keylen && setsockopt(r->tfmfd, KABI_SOL_ALG, ALG_SET_KEY, bench_key, (socklen_t)r->alg->keylen))
		return -errno;
	r->opfd = accept(r->tfmfd, NULL, NULL);
	return r->opfd < 0 ? -errno : 0;
}

/* ALG_SET_OP and ALG_SET_IV (and for AEAD ALG_SET_AEAD_ASSOCLEN 0), with
 * no data: what starts a cipher request. */
static int cipher_start(struct runner *r)
{
	union {
		char buf[2 * CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct af_alg_iv) + 16)];
		struct cmsghdr align;
	} ctl;
	const size_t ivlen = r->alg->ivlen;
	struct msghdr m = { .msg_control = ctl.buf,
			    .msg_controllen = CMSG_SPACE(sizeof(int)) * (r->alg->tag ? 2 : 1) +
					      CMSG_SPACE(sizeof(struct af_alg_iv) + ivlen) };

	memset(&ctl, 0, sizeof(ctl));
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = KABI_SOL_ALG;
	c->cmsg_type = ALG_SET_OP;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	*(int *)CMSG_DATA(c) = ALG_OP_ENCRYPT;
	c = CMSG_NXTHDR(&m, c);
	c->cmsg_level = KABI_SOL_ALG;
	c->cmsg_type = ALG_SET_IV;
	c->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + ivlen);
	struct af_alg_iv *iv = (struct af_alg_iv *)CMSG_DATA(c);
	iv->ivlen = (uint32_t)ivlen;
	memcpy(iv->iv, bench_iv, ivlen);
	if (r->alg->tag) {
		c = CMSG_NXTHDR(&m, c);
		c->cmsg_level = KABI_SOL_ALG;
		c->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		*(int *)CMSG_DATA(c) = 0;
	}
	return sendmsg(r->opfd, &m, MSG_MORE) < 0 ? -errno : 0;
}

/* Moves one chunk into the op socket: by send, or by vmsplice + splice. */
static int feed(struct runner *r, const uint8_t *p, size_t n, bool more)
{
	if (r->pipefd[0] < 0)
		return send(r->opfd, p, n, more ? MSG_MORE : 0) == (ssize_t)n ? 0 : -EIO;
	while (n) {
		struct iovec iov = { (void *)p, n };
		ssize_t k = vmsplice(r->pipefd[1], &iov, 1, 0);
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		const bool last = (size_t)k == n;
		if (splice(r->pipefd[0], NULL, r->opfd, NULL, (size_t)k,
			   more || !last ? SPLICE_F_MORE : 0) != k)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
	while (n) {
		ssize_t got = read(fd, p, n);
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

/* An AEAD request is whole: the text, then ciphertext and tag back. */
static int shim_aead_run(struct runner *r)
{
	int err = cipher_start(r);

	for (size_t at = 0; !err && at < r->len; at += CHUNK) {
		const size_t n = r->len - at < CHUNK ? r->len - at : CHUNK;
		err = feed(r, r->in + at, n, at + n < r->len);
	}
	if (!err)
		err = read_all(r->opfd, r->out, r->len + r->alg->tag);
	return err ? err : 1;
}

/* A hash takes the whole message, then gives the digest; a cipher is fed
 * and drained chunk by chunk, as the kernel's send buffer requires. */
static int shim_run(struct runner *r)
{
	if (r->alg->tag)
		return shim_aead_run(r);
	int err = r->alg->outlen ? 0 : cipher_start(r);

	for (size_t at = 0; !err && at < r->len; at += CHUNK) {
		const size_t n = r->len - at < CHUNK ? r->len - at : CHUNK;
		const bool more = at + n < r->len;
		err = feed(r, r->in + at, n, more);
		if (!err && !r->alg->outlen)
			err = read_all(r->opfd, r->out + at, n);
	}
	if (!err && r->alg->outlen)
		err = read_all(r->opfd, r->out, r->alg->outlen);
	return err ? err : 1;
}

void shim_done(struct runner *r)
{
	for (int *fd = &r->tfmfd; fd <= &r->opfd; fd++)
		if (*fd >= 0)
			close(*fd);
	for (int i = 0; i < 2; i++)
		if (r->pipefd[i] >= 0)
			close(r->pipefd[i]);
	free(r->in);
	free(r->out);
}

int shim_setup(struct runner *r, bool use_splice)
{
	r->tfmfd = r->opfd = r->pipefd[0] = r->pipefd[1] = -1;
	r->run = shim_run;
	r->done = shim_done;
	if (decrypting(r->alg))
		return -EOPNOTSUPP;	/* the native paths' measure */
	/* The kernel holds a whole AEAD request in the socket's send buffer
	 * (about 200 KiB), so larger ones cannot be sent at all. */
	if (r->alg->tag && r->len > CHUNK)
		return -EMSGSIZE;
	/* Page-aligned, as vmsplice users align: whole pages fit the pipe. */
	r->in = aligned_alloc(4096, (r->len + 4095) / 4096 * 4096);
	r->out = malloc(out_len(r));
	if (!r->in || !r->out)
		return -ENOMEM;
	fill_pattern(r->in, r->len);
	if (use_splice && pipe(r->pipefd))
		return -errno;
	if (use_splice)
		fcntl(r->pipefd[1], F_SETPIPE_SZ, CHUNK);
	return alg_open(r);
}

/* ---- devcrypto: /dev/crypto's ioctls ---------------------------------- */

static int devcrypto_run(struct runner *r)
{
	uint8_t iv[16];

	memcpy(iv, bench_iv, sizeof(iv));
	if (r->alg->tag) {
		struct crypt_auth_op a = { .ses = r->ses, .op = COP_ENCRYPT, .len = (uint32_t)r->len,
					   .src = r->in, .dst = r->out, .iv = iv, .tag_len = (uint32_t)r->alg->tag };
		return ioctl(r->cfd, CIOCAUTHCRYPT, &a) ? -errno : 1;
	}
	struct crypt_op c = { .ses = r->ses, .op = COP_ENCRYPT, .len = (uint32_t)r->len, .src = r->in };
	if (r->alg->outlen)
		c.mac = r->out;
	else {
		c.dst = r->out;
		c.iv = iv;
	}
	return ioctl(r->cfd, CIOCCRYPT, &c) ? -errno : 1;
}

static void devcrypto_done(struct runner *r)
{
	if (r->cfd >= 0)
		close(r->cfd);
	free(r->in);
	free(r->out);
}

static int devcrypto_setup(struct runner *r)
{
	const struct alg_spec *a = r->alg;
	struct session2_op s = { 0 };

	r->cfd = -1;
	r->run = devcrypto_run;
	r->done = devcrypto_done;
	if (decrypting(a))
		return -EOPNOTSUPP;
	if (r->len > UINT32_MAX - 64)
		return -EMSGSIZE;
	r->in = malloc(r->len);
	r->out = malloc(out_len(r));
	if (!r->in || !r->out)
		return -ENOMEM;
	fill_pattern(r->in, r->len);
	if ((r->cfd = open("/dev/crypto", O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	if (a->outlen) {
		snprintf(s.mac_name, sizeof(s.mac_name), "%s", bind_name(a));
		s.mackey = (uint8_t *)bench_key;
		s.mackeylen = a->mac ? (uint32_t)a->keylen : 0;
	} else {
		snprintf(s.alg_name, sizeof(s.alg_name), "%s", bind_name(a));
		s.key = (uint8_t *)bench_key;
		s.keylen = (uint32_t)a->keylen;
	}
	if (ioctl(r->cfd, CIOCGSESSION2, &s))
		return -errno;
	r->ses = s.ses;
	return 0;
}


int dpdk_path_setup(struct runner *r, const char *device, bool burst)
{
	r->in = malloc(r->len);
	r->out = malloc(out_len(r));
	int err = !r->in || !r->out ? -ENOMEM : 0;
	if (!err) {
		fill_pattern(r->in, r->len);
		err = (burst ? dpdk_burst_setup : dpdk_direct_setup)(r, device, bench_key, bench_iv);
	}
	if (err && !r->done) {
		free(r->in);
		free(r->out);
		r->in = r->out = NULL;
	}
	return err;
}

static unsigned batch_depth(size_t len)
{
	const size_t budget = 32u << 20;	/* registered buffers for one batch */
	size_t d = budget / (len + 80);
	return d > 64 ? 64 : d < 1 ? 1 : (unsigned)d;
}

int path_setup(struct runner *r, enum path p)
{
	r->per_call = 1;
	switch (p) {
	case P_INPROC: return inproc_setup(r);
	case P_NATIVE_SYNC: return native_setup(r, 1);
	case P_NATIVE_BATCH: return native_setup(r, batch_depth(r->len));
	case P_SHIM_WRITE: return shim_setup(r, false);
	case P_SHIM_SPLICE: return shim_setup(r, true);
	case P_DEVCRYPTO: return devcrypto_setup(r);
	default: return -EINVAL;
	}
}
