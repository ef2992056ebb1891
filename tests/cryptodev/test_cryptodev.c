/* /dev/crypto as cryptodev-linux's ioctl ABI defines it (ualg_cryptodev.h),
 * checked against NIST CAVP and RFC vectors read from the
 * python3-cryptography-vectors tree given as argv[1]:
 *   ciphers/AES/CBC/CBCMMT{128,192,256}.rsp, CBCGFSbox128.rsp (NIST CAVP)
 *   ciphers/AES/ECB/ECBMMT{128,256}.rsp (NIST CAVP)
 *   ciphers/AES/CTR/aes-{128,256}-ctr.txt (RFC 3686)
 *   ciphers/AES/GCM/gcmEncryptExtIV{128,256}.rsp, gcmDecrypt128.rsp (NIST CAVP)
 *   hashes/SHA1/SHA1ShortMsg.rsp, hashes/SHA2/SHA{256,512}ShortMsg.rsp (NIST CAVP)
 *   HMAC/rfc-2202-sha1.txt, rfc-4231-sha{256,512}.txt (RFC 2202, RFC 4231)
 * The composite TLS and SRTP modes are checked against the same device's
 * separate cipher and MAC sessions (themselves checked above).
 *
 * Plain C with no kernel headers: built with glibc (run under ualg-run)
 * and with musl-gcc -static (run under ualg-run --supervise).  TAP. */
#include "ualg_cryptodev.h"
#include "../unit/tap.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *vdir;
static int cfd = -1;

/* ---- vector files ----------------------------------------------------- */

#define MAXF 16
struct rec {
	char section[64];	/* the last [...] line */
	int n;
	char *name[MAXF], *val[MAXF];
};

static const char *get(const struct rec *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcasecmp(r->name[i], name))
			return r->val[i];
	return NULL;
}

static size_t unhex(const char *h, uint8_t *out, size_t max)
{
	size_t n = 0;
	if (!h)
		return 0;
	while (isxdigit((unsigned char)h[0]) && isxdigit((unsigned char)h[1]) && n < max) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Calls fn for every record (a run of NAME = VALUE lines); returns how
 * many there were, or -1 when the file cannot be read. */
static int each(const char *rel, void (*fn)(const struct rec *, void *), void *arg)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", vdir, rel);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	static char line[1 << 17];
	struct rec r;
	memset(&r, 0, sizeof(r));
	int count = 0;
	bool eof = false;
	while (!eof) {
		char *l = fgets(line, sizeof(line), f) ? trim(line) : NULL;
		eof = !l;
		if (l && l[0] == '[') {
			snprintf(r.section, sizeof(r.section), "%s", l);
			continue;
		}
		char *eq = l ? strchr(l, '=') : NULL;
		if (l && l[0] != '#' && eq) {
			*eq = 0;
			if (r.n < MAXF) {
				r.name[r.n] = strdup(trim(l));
				r.val[r.n] = strdup(trim(eq + 1));
				r.n++;
			}
			continue;
		}
		if (l && l[0] == '#')
			continue;
		if (l && l[0] && r.n < MAXF) {	/* a bare word: "FAIL" */
			r.name[r.n] = strdup(l);
			r.val[r.n] = strdup("");
			r.n++;
			continue;
		}
		if (r.n) {	/* blank line or end: a record is complete */
			fn(&r, arg);
			count++;
			for (int i = 0; i < r.n; i++) {
				free(r.name[i]);
				free(r.val[i]);
			}
			r.n = 0;
		}
	}
	fclose(f);
	return count;
}

/* ---- sessions --------------------------------------------------------- */

static int session(int fd, uint32_t cipher, const uint8_t *key, uint32_t keylen, uint32_t mac,
		   const uint8_t *mackey, uint32_t mackeylen, uint32_t *ses)
{
	struct session_op s;
	memset(&s, 0, sizeof(s));
	s.cipher = cipher;
	s.key = (uint8_t *)key;
	s.keylen = keylen;
	s.mac = mac;
	s.mackey = (uint8_t *)mackey;
	s.mackeylen = mackeylen;
	if (ioctl(fd, CIOCGSESSION, &s))
		return -errno;
	*ses = s.ses;
	return 0;
}

static void fsession(int fd, uint32_t ses)
{
	ioctl(fd, CIOCFSESSION, &ses);
}

static int docrypt(int fd, uint32_t ses, int op, int flags, const uint8_t *src, uint32_t len, uint8_t *dst,
		 uint8_t *iv, uint8_t *mac)
{
	struct crypt_op c;
	memset(&c, 0, sizeof(c));
	c.ses = ses;
	c.op = (uint16_t)op;
	c.flags = (uint16_t)flags;
	c.len = len;
	c.src = (uint8_t *)src;
	c.dst = dst;
	c.iv = iv;
	c.mac = mac;
	return ioctl(fd, CIOCCRYPT, &c) ? -errno : 0;
}

/* ---- block ciphers: CBC, ECB, CTR ------------------------------------- */

struct cipher_run {
	uint32_t alg;
	int done, bad;
};

static void cipher_one(const struct rec *r, void *arg)
{
	struct cipher_run *cr = arg;
	uint8_t key[64], iv[16] = { 0 }, pt[4096], ct[4096], out[4096];
	size_t kl = unhex(get(r, "KEY"), key, sizeof(key));
	unhex(get(r, "IV"), iv, sizeof(iv));
	size_t pl = unhex(get(r, "PLAINTEXT"), pt, sizeof(pt));
	size_t cl = unhex(get(r, "CIPHERTEXT"), ct, sizeof(ct));
	if (!kl || pl != cl)
		return;
	bool dec = strstr(r->section, "DECRYPT") != NULL;
	uint32_t ses = 0;
	cr->done++;
	if (session(cfd, cr->alg, key, (uint32_t)kl, 0, NULL, 0, &ses)) {
		cr->bad++;
		return;
	}
	uint8_t ivc[16];
	memcpy(ivc, iv, sizeof(iv));
	int e = docrypt(cfd, ses, dec ? COP_DECRYPT : COP_ENCRYPT, 0, dec ? ct : pt, (uint32_t)pl, out,
		      cr->alg == CRYPTO_AES_ECB ? NULL : ivc, NULL);
	if (e || memcmp(out, dec ? pt : ct, pl))
		cr->bad++;
	fsession(cfd, ses);
}

static void cipher_file(uint32_t alg, const char *rel)
{
	struct cipher_run cr = { alg, 0, 0 };
	int n = each(rel, cipher_one, &cr);
	ok(n > 0 && cr.done > 0 && cr.bad == 0, "%s: %d vectors, %d wrong", rel, cr.done, cr.bad);
}

/* ---- hashes and HMAC -------------------------------------------------- */

struct hash_run {
	uint32_t mac;
	bool keyed, split;
	int done, bad;
};

static void hash_one(const struct rec *r, void *arg)
{
	struct hash_run *hr = arg;
	static uint8_t msg[1 << 16];
	uint8_t key[512], md[64], out[64];
	const char *len_s = get(r, "Len");
	if (!len_s || !get(r, "MD"))
		return;
	size_t bits = strtoul(len_s, NULL, 10);
	size_t ml = unhex(get(r, "Msg"), msg, sizeof(msg));
	if (!hr->keyed) {
		if (bits % 8 || ml < bits / 8)
			return;
		ml = bits / 8;
	}
	size_t kl = unhex(get(r, "Key"), key, sizeof(key));
	size_t dl = unhex(get(r, "MD"), md, sizeof(md));
	uint32_t ses = 0;
	hr->done++;
	if (session(cfd, 0, NULL, 0, hr->mac, hr->keyed ? key : NULL, (uint32_t)kl, &ses)) {
		hr->bad++;
		return;
	}
	int e;
	memset(out, 0, sizeof(out));
	if (!hr->split) {
		e = docrypt(cfd, ses, COP_ENCRYPT, 0, msg, (uint32_t)ml, NULL, NULL, out);
	} else {
		/* three parts: UPDATE, UPDATE, FINAL (an empty FINAL when ml < 2) */
		size_t a = ml / 3, b = ml / 3;
		e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_UPDATE | COP_FLAG_RESET, msg, (uint32_t)a, NULL, NULL,
			  out);
		if (!e && b)
			e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_UPDATE, msg + a, (uint32_t)b, NULL, NULL, out);
		if (!e)
			e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_FINAL, msg + a + b, (uint32_t)(ml - a - b), NULL,
				  NULL, out);
	}
	if (e || memcmp(out, md, dl))
		hr->bad++;
	fsession(cfd, ses);
}

static void hash_file(uint32_t mac, bool keyed, bool split, const char *rel)
{
	struct hash_run hr = { mac, keyed, split, 0, 0 };
	int n = each(rel, hash_one, &hr);
	ok(n > 0 && hr.done > 0 && hr.bad == 0, "%s%s: %d vectors, %d wrong", rel,
	   split ? " (UPDATE, UPDATE, FINAL)" : "", hr.done, hr.bad);
}

/* ---- GCM through CIOCAUTHCRYPT ---------------------------------------- */

struct gcm_run {
	bool dec;
	int done, bad, fails;
};

static int authcrypt(int fd, uint32_t ses, int op, int flags, const uint8_t *aad, uint32_t alen,
		     uint8_t *src, uint32_t len, uint8_t *dst, uint8_t *iv, uint32_t tag_len, uint8_t *tag,
		     uint32_t *outlen)
{
	struct crypt_auth_op a;
	memset(&a, 0, sizeof(a));
	a.ses = ses;
	a.op = (uint16_t)op;
	a.flags = (uint16_t)flags;
	a.len = len;
	a.auth_len = alen;
	a.auth_src = (uint8_t *)aad;
	a.src = src;
	a.dst = dst;
	a.iv = iv;
	a.tag_len = tag_len;
	a.tag = tag;
	if (ioctl(fd, CIOCAUTHCRYPT, &a))
		return -errno;
	if (outlen)
		*outlen = a.len;
	return 0;
}

static void gcm_one(const struct rec *r, void *arg)
{
	struct gcm_run *g = arg;
	uint8_t key[32], iv[64], pt[1024], ct[1024], aad[1024], tag[16], buf[1100];
	size_t kl = unhex(get(r, "Key"), key, sizeof(key));
	size_t ivl = unhex(get(r, "IV"), iv, sizeof(iv));
	size_t pl = unhex(get(r, "PT"), pt, sizeof(pt));
	size_t cl = unhex(get(r, "CT"), ct, sizeof(ct));
	size_t al = unhex(get(r, "AAD"), aad, sizeof(aad));
	size_t tl = unhex(get(r, "Tag"), tag, sizeof(tag));
	bool fail = get(r, "FAIL") != NULL;
	if (!kl || ivl != 12 || !tl)
		return;	/* cryptodev's gcm(aes) takes a 96-bit IV */
	bool dec = g->dec;
	uint32_t ses = 0, outlen = 0;
	g->done++;
	if (session(cfd, CRYPTO_AES_GCM, key, (uint32_t)kl, 0, NULL, 0, &ses)) {
		g->bad++;
		return;
	}
	if (!dec) {
		int e = authcrypt(cfd, ses, COP_ENCRYPT, 0, aad, (uint32_t)al, pt, (uint32_t)pl, buf, iv,
				  (uint32_t)tl, NULL, &outlen);
		if (e || outlen != pl + tl || memcmp(buf, ct, pl) || memcmp(buf + pl, tag, tl))
			g->bad++;
	} else {
		uint8_t in[1100];
		memcpy(in, ct, cl);
		memcpy(in + cl, tag, tl);
		int e = authcrypt(cfd, ses, COP_DECRYPT, 0, aad, (uint32_t)al, in, (uint32_t)(cl + tl), buf, iv,
				  (uint32_t)tl, NULL, &outlen);
		if (fail) {
			g->fails++;
			if (e != -EBADMSG)
				g->bad++;
		} else if (e || outlen != cl || memcmp(buf, pt, pl)) {
			g->bad++;
		}
	}
	fsession(cfd, ses);
}

static void gcm_file(const char *rel, bool dec)
{
	struct gcm_run g = { dec, 0, 0, 0 };
	int n = each(rel, gcm_one, &g);
	ok(n > 0 && g.done > 0 && g.bad == 0, "%s: %d vectors (%d forged, EBADMSG), %d wrong", rel, g.done,
	   g.fails, g.bad);
}

/* ---- the rest: flags, async, cloning, info, errors -------------------- */

static const uint8_t k16[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
				 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };

static void test_write_iv(void)
{
	/* CBC chaining across calls: one call over 4 blocks equals two calls
	 * of 2, the first with COP_FLAG_WRITE_IV (the IV becomes the last
	 * ciphertext block), the second without an IV (the session's). */
	uint8_t pt[64], one[64], two[64], iv[16] = { 1 }, iv2[16] = { 1 };
	for (int i = 0; i < 64; i++)
		pt[i] = (uint8_t)i;
	uint32_t ses = 0;
	int e = session(cfd, CRYPTO_AES_CBC, k16, 16, 0, NULL, 0, &ses);
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, 0, pt, 64, one, iv, NULL);
	ok(!e && !memcmp(iv, iv2, 16), "without COP_FLAG_WRITE_IV the caller's IV is left as it was");
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_WRITE_IV, pt, 32, two, iv2, NULL);
	ok(!e && !memcmp(iv2, two + 16, 16), "COP_FLAG_WRITE_IV returns the chaining value");
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, 0, pt + 32, 32, two + 32, NULL, NULL);
	ok(!e && !memcmp(one, two, 64), "a call without an IV continues the session's chain");
	/* COP_FLAG_NO_ZC: the same result */
	uint8_t nz[64], iv3[16] = { 1 };
	e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_NO_ZC, pt, 64, nz, iv3, NULL);
	ok(!e && !memcmp(nz, one, 64), "COP_FLAG_NO_ZC gives the same ciphertext");
	fsession(cfd, ses);
}

static void test_reset(void)
{
	uint8_t a[64], b[64], msg[] = "abc";
	uint32_t ses = 0;
	int e = session(cfd, 0, NULL, 0, CRYPTO_SHA2_256, NULL, 0, &ses);
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, 0, msg, 3, NULL, NULL, a);
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_UPDATE, (const uint8_t *)"junk", 4, NULL, NULL, b);
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_UPDATE | COP_FLAG_RESET, msg, 3, NULL, NULL, b);
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_FINAL, NULL, 0, NULL, NULL, b);
	ok(!e && !memcmp(a, b, 32), "COP_FLAG_RESET drops the data hashed before it");
	e = docrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_UPDATE, (const uint8_t *)"junk", 4, NULL, NULL, b);
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, 0, msg, 3, NULL, NULL, b);
	ok(!e && !memcmp(a, b, 32), "flags 0 starts a new digest");
	fsession(cfd, ses);
}

static void test_cphash(void)
{
	const uint8_t *m = (const uint8_t *)"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t whole[64], x[64], y[64];
	uint32_t s1 = 0, s2 = 0, s3 = 0;
	int e = session(cfd, 0, NULL, 0, CRYPTO_SHA2_256, NULL, 0, &s1);
	if (!e)
		e = session(cfd, 0, NULL, 0, CRYPTO_SHA2_256, NULL, 0, &s2);
	if (!e)
		e = docrypt(cfd, s1, COP_ENCRYPT, 0, m, 56, NULL, NULL, whole);
	if (!e)
		e = docrypt(cfd, s1, COP_ENCRYPT, COP_FLAG_UPDATE | COP_FLAG_RESET, m, 20, NULL, NULL, x);
	struct cphash_op cp = { .dst_ses = s2, .src_ses = s1 };
	if (!e && ioctl(cfd, CIOCCPHASH, &cp))
		e = -errno;
	if (!e)
		e = docrypt(cfd, s1, COP_ENCRYPT, COP_FLAG_FINAL, m + 20, 36, NULL, NULL, x);
	if (!e)
		e = docrypt(cfd, s2, COP_ENCRYPT, COP_FLAG_FINAL, m + 20, 36, NULL, NULL, y);
	ok(!e && !memcmp(x, whole, 32) && !memcmp(y, whole, 32),
	   "CIOCCPHASH: the copy and the original both finish the digest");
	cp.dst_ses = s1;
	ok(ioctl(cfd, CIOCCPHASH, &cp) == -1 && errno == EDEADLK, "CIOCCPHASH onto itself: EDEADLK");
	cp.dst_ses = s1 ^ 0x5a5a5a5a;
	ok(ioctl(cfd, CIOCCPHASH, &cp) == -1 && errno == ENOENT, "CIOCCPHASH of an unknown session: ENOENT");
	e = session(cfd, CRYPTO_AES_CBC, k16, 16, 0, NULL, 0, &s3);
	cp.dst_ses = s3;
	ok(!e && ioctl(cfd, CIOCCPHASH, &cp) == -1 && errno == EINVAL, "CIOCCPHASH onto a cipher: EINVAL");
	fsession(cfd, s1);
	fsession(cfd, s2);
	fsession(cfd, s3);
}

static void test_info(void)
{
	uint32_t ses = 0;
	uint8_t mk[20] = { 0 };
	int e = session(cfd, CRYPTO_AES_CBC, k16, 16, CRYPTO_SHA2_256_HMAC, mk, 20, &ses);
	struct session_info_op si;
	memset(&si, 0, sizeof(si));
	si.ses = ses;
	if (!e && ioctl(cfd, CIOCGSESSINFO, &si))
		e = -errno;
	ok(!e && !strcmp(si.cipher_info.cra_name, "cbc(aes)") && !strcmp(si.hash_info.cra_name, "hmac(sha256)") &&
	   si.cipher_info.cra_driver_name[0] && si.hash_info.cra_driver_name[0] &&
	   !(si.flags & SIOP_FLAG_KERNEL_DRIVER_ONLY),
	   "CIOCGSESSINFO: %s (%s), %s (%s), flags %u", si.cipher_info.cra_name, si.cipher_info.cra_driver_name,
	   si.hash_info.cra_name, si.hash_info.cra_driver_name, si.flags);
	fsession(cfd, ses);
	si.ses = ses;
	ok(ioctl(cfd, CIOCGSESSINFO, &si) == -1 && errno == EINVAL, "CIOCGSESSINFO after CIOCFSESSION: EINVAL");
	uint32_t feat = 99;
	ok(ioctl(cfd, CIOCASYMFEAT, &feat) == 0 && feat == 0, "CIOCASYMFEAT: no asymmetric features");
}

static void test_names(void)
{
	struct session2_op s;
	uint8_t key[32] = { 0 };
	memset(&s, 0, sizeof(s));
	strcpy(s.alg_name, "cbc(aes)");
	s.key = (uint8_t *)k16;
	s.keylen = 16;
	strcpy(s.mac_name, "hmac(sha256)");
	s.mackey = key;
	s.mackeylen = 32;
	int e = ioctl(cfd, CIOCGSESSION2, &s) ? -errno : 0;
	/* the same ciphertext as the session by id */
	uint8_t pt[32] = { 7 }, a[32], b[32], iva[16] = { 0 }, ivb[16] = { 0 }, ma[32], mb[32];
	uint32_t ref = 0;
	if (!e)
		e = session(cfd, CRYPTO_AES_CBC, k16, 16, CRYPTO_SHA2_256_HMAC, key, 32, &ref);
	if (!e)
		e = docrypt(cfd, s.ses, COP_ENCRYPT, 0, pt, 32, a, iva, ma);
	if (!e)
		e = docrypt(cfd, ref, COP_ENCRYPT, 0, pt, 32, b, ivb, mb);
	ok(!e && !memcmp(a, b, 32) && !memcmp(ma, mb, 32), "CIOCGSESSION2 by name: cbc(aes) + hmac(sha256)");
	fsession(cfd, s.ses);
	fsession(cfd, ref);
	memset(&s, 0, sizeof(s));
	strcpy(s.alg_name, "nosuch(aes)");
	s.key = (uint8_t *)k16;
	s.keylen = 16;
	ok(ioctl(cfd, CIOCGSESSION2, &s) == -1 && errno == ENOENT, "CIOCGSESSION2 of an unknown algorithm: ENOENT");
	memset(&s, 0, sizeof(s));
	strcpy(s.mac_name, "sha3-256");
	e = ioctl(cfd, CIOCGSESSION2, &s) ? -errno : 0;
	uint8_t d[32];
	static const uint8_t sha3_empty[4] = { 0xa7, 0xff, 0xc6, 0xf8 };	/* FIPS 202, SHA3-256("") */
	if (!e)
		e = docrypt(cfd, s.ses, COP_ENCRYPT, 0, NULL, 0, NULL, NULL, d);
	ok(!e && !memcmp(d, sha3_empty, 4), "CIOCGSESSION2 by name: a hash cryptodev has no id for (sha3-256)");
	fsession(cfd, s.ses);
	memset(&s, 0, sizeof(s));
	strcpy(s.alg_name, "gcm(aes)");
	s.key = key;
	s.keylen = 16;
	ok(ioctl(cfd, CIOCGSESSION2, &s) == 0, "CIOCGSESSION2 by name: an AEAD (gcm(aes))");
	fsession(cfd, s.ses);
}

static void test_errors(void)
{
	uint32_t ses = 0;
	uint8_t key[100] = { 0 }, buf[64], iv[16] = { 0 };
	ok(session(cfd, 999, key, 16, 0, NULL, 0, &ses) == -EINVAL, "CIOCGSESSION of an unknown cipher id: EINVAL");
	ok(session(cfd, 0, NULL, 0, 999, NULL, 0, &ses) == -EINVAL, "CIOCGSESSION of an unknown mac id: EINVAL");
	ok(session(cfd, 0, NULL, 0, 0, NULL, 0, &ses) == -EINVAL, "CIOCGSESSION with neither: EINVAL");
	ok(session(cfd, CRYPTO_AES_CBC, key, 15, 0, NULL, 0, &ses) == -EINVAL, "a 15-byte AES key: EINVAL");
	ok(session(cfd, CRYPTO_AES_CBC, key, 65, 0, NULL, 0, &ses) == -EINVAL,
	   "a key over CRYPTO_CIPHER_MAX_KEY_LEN: EINVAL");
	ok(session(cfd, 0, NULL, 0, CRYPTO_SHA1_HMAC, key, 513, &ses) == -EINVAL,
	   "a MAC key over CRYPTO_HMAC_MAX_KEY_LEN: EINVAL");
	ok(session(cfd, CRYPTO_AES_CBC, (const uint8_t *)8, 16, 0, NULL, 0, &ses) == -EFAULT,
	   "a key at a bad address: EFAULT");
	int e = session(cfd, CRYPTO_AES_CBC, key, 16, 0, NULL, 0, &ses);
	ok(!e && docrypt(cfd, ses, COP_ENCRYPT, 0, buf, 15, buf, iv, NULL) == -EINVAL,
	   "CIOCCRYPT of 15 bytes on cbc(aes): EINVAL");
	ok(docrypt(cfd, ses, 7, 0, buf, 16, buf, iv, NULL) == -EINVAL, "CIOCCRYPT with op 7: EINVAL");
	ok(docrypt(cfd, ses ^ 1, COP_ENCRYPT, 0, buf, 16, buf, iv, NULL) == -EINVAL,
	   "CIOCCRYPT on an unknown session: EINVAL");
	ok(docrypt(cfd, ses, COP_ENCRYPT, 0, (const uint8_t *)8, 16, buf, iv, NULL) == -EFAULT,
	   "CIOCCRYPT from a bad address: EFAULT");
	ok(ioctl(cfd, _IOWR('c', 150, uint32_t), &ses) == -1 && errno == EINVAL, "an unknown ioctl: EINVAL");
	ok(ioctl(cfd, CIOCCRYPT, (void *)8) == -1 && errno == EFAULT, "CIOCCRYPT's argument at a bad address: EFAULT");
	fsession(cfd, ses);
	/* CIOCAUTHCRYPT needs a cipher; plain mode needs an AEAD or a stream */
	e = session(cfd, 0, NULL, 0, CRYPTO_SHA1, NULL, 0, &ses);
	ok(!e && authcrypt(cfd, ses, COP_ENCRYPT, 0, NULL, 0, buf, 16, buf, NULL, 0, NULL, NULL) == -EINVAL,
	   "CIOCAUTHCRYPT on a hash session: EINVAL");
	fsession(cfd, ses);
	e = session(cfd, CRYPTO_AES_GCM, key, 16, 0, NULL, 0, &ses);
	uint8_t big[5000] = { 0 };
	ok(!e && authcrypt(cfd, ses, COP_ENCRYPT, 0, big, 4097, buf, 16, big, iv, 0, NULL, NULL) == -EINVAL,
	   "CIOCAUTHCRYPT with auth_len over a page: EINVAL");
	ok(authcrypt(cfd, ses, COP_ENCRYPT, 0, NULL, 0, buf, 16, big, iv, 17, NULL, NULL) == -EINVAL,
	   "CIOCAUTHCRYPT with a 17-byte gcm tag: EINVAL");
	fsession(cfd, ses);
}

static void test_async(void)
{
	enum { N = 8 };
	uint8_t pt[N][32], ct[N][32], ref[N][32], iv[N][16];
	uint32_t ses = 0;
	int e = session(cfd, CRYPTO_AES_CBC, k16, 16, 0, NULL, 0, &ses);
	for (int i = 0; i < N; i++) {
		memset(pt[i], i, 32);
		memset(iv[i], 0x10 + i, 16);
		uint8_t v[16];
		memcpy(v, iv[i], 16);
		if (!e)
			e = docrypt(cfd, ses, COP_ENCRYPT, 0, pt[i], 32, ref[i], v, NULL);
	}
	struct pollfd p = { .fd = cfd, .events = POLLIN };
	ok(!e && poll(&p, 1, 0) == 0, "poll: no POLLIN while nothing completed");
	struct crypt_op c;
	memset(&c, 0, sizeof(c));
	ok(ioctl(cfd, CIOCASYNCFETCH, &c) == -1 && errno == EBUSY, "CIOCASYNCFETCH with nothing done: EBUSY");
	for (int i = 0; i < N && !e; i++) {
		memset(&c, 0, sizeof(c));
		c.ses = ses;
		c.op = COP_ENCRYPT;
		c.len = 32;
		c.src = pt[i];
		c.dst = ct[i];
		c.iv = iv[i];
		if (ioctl(cfd, CIOCASYNCCRYPT, &c))
			e = -errno;
	}
	ok(!e, "CIOCASYNCCRYPT: %d submitted", N);
	p.revents = 0;
	ok(poll(&p, 1, 1000) == 1 && (p.revents & POLLIN), "poll: POLLIN once completions wait");
	int got = 0, right = 0;
	bool order = true;
	for (;;) {
		memset(&c, 0, sizeof(c));
		if (ioctl(cfd, CIOCASYNCFETCH, &c))
			break;
		int i = (int)(c.dst - ct[0]) / 32;
		if (i != got)
			order = false;
		if (i >= 0 && i < N && c.src == pt[i] && !memcmp(ct[i], ref[i], 32))
			right++;
		got++;
	}
	ok(got == N && right == N && order && errno == EBUSY,
	   "CIOCASYNCFETCH: %d of %d completions, in order, each its own crypt_op", right, N);
	p.revents = 0;
	ok(poll(&p, 1, 0) == 0, "poll: no POLLIN after every completion was fetched");
	memset(&c, 0, sizeof(c));
	c.ses = ses;
	c.op = COP_ENCRYPT;
	c.flags = COP_FLAG_NO_ZC;
	c.len = 32;
	c.src = pt[0];
	c.dst = ct[0];
	ok(ioctl(cfd, CIOCASYNCCRYPT, &c) == -1 && errno == EINVAL, "CIOCASYNCCRYPT with COP_FLAG_NO_ZC: EINVAL");
	/* the queue holds 64: the 65th submission is EBUSY */
	int q = 0;
	c.flags = 0;
	while (q < 100 && ioctl(cfd, CIOCASYNCCRYPT, &c) == 0)
		q++;
	ok(q == 64 && errno == EBUSY, "the completion queue holds %d, then EBUSY", q);
	while (ioctl(cfd, CIOCASYNCFETCH, &c) == 0)
		;
	/* a failed request's error comes with its fetch */
	c.len = 15;
	ok(ioctl(cfd, CIOCASYNCCRYPT, &c) == 0 && ioctl(cfd, CIOCASYNCFETCH, &c) == -1 && errno == EINVAL,
	   "a failed asynchronous request: its EINVAL at CIOCASYNCFETCH");
	fsession(cfd, ses);
}

/* TLS: MAC (over auth data and plaintext), pad, then CBC, in place. */
static void test_tls(void)
{
	uint8_t mk[20], iv[16], iv2[16], rec[128], ref[128], mac[20], hdr[13] = { 0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 37 };
	memset(mk, 0x0b, sizeof(mk));
	memset(iv, 0x42, sizeof(iv));
	for (int i = 0; i < 37; i++)
		rec[i] = (uint8_t)('a' + i % 26);
	uint32_t ses = 0, h = 0, c = 0, outlen = 0;
	int e = session(cfd, CRYPTO_AES_CBC, k16, 16, CRYPTO_SHA1_HMAC, mk, 20, &ses);
	if (!e)
		e = session(cfd, 0, NULL, 0, CRYPTO_SHA1_HMAC, mk, 20, &h);
	if (!e)
		e = session(cfd, CRYPTO_AES_CBC, k16, 16, 0, NULL, 0, &c);
	/* the reference: hmac(hdr || data), data || mac || pad, cbc */
	uint8_t both[50];
	memcpy(both, hdr, 13);
	memcpy(both + 13, rec, 37);
	if (!e)
		e = docrypt(cfd, h, COP_ENCRYPT, 0, both, 50, NULL, NULL, mac);
	memcpy(ref, rec, 37);
	memcpy(ref + 37, mac, 20);
	memset(ref + 57, 6, 7);	/* 57 -> 64: seven bytes of 6 */
	memcpy(iv2, iv, 16);
	if (!e)
		e = docrypt(cfd, c, COP_ENCRYPT, 0, ref, 64, ref, iv2, NULL);
	memcpy(iv2, iv, 16);
	if (!e)
		e = authcrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_AEAD_TLS_TYPE, hdr, 13, rec, 37, rec, iv2, 0, NULL, &outlen);
	ok(!e && outlen == 64 && !memcmp(rec, ref, 64), "CIOCAUTHCRYPT TLS type: MAC, pad, encrypt (%u bytes)", outlen);
	memcpy(iv2, iv, 16);
	e = authcrypt(cfd, ses, COP_DECRYPT, COP_FLAG_AEAD_TLS_TYPE, hdr, 13, rec, 64, rec, iv2, 0, NULL, &outlen);
	ok(!e && outlen == 37 && rec[0] == 'a' && rec[36] == 'a' + 36 % 26, "CIOCAUTHCRYPT TLS type: decrypt, check, strip");
	memcpy(rec, ref, 64);
	rec[10] ^= 1;
	memcpy(iv2, iv, 16);
	ok(authcrypt(cfd, ses, COP_DECRYPT, COP_FLAG_AEAD_TLS_TYPE, hdr, 13, rec, 64, rec, iv2, 0, NULL, NULL) ==
		   -EBADMSG, "CIOCAUTHCRYPT TLS type, a changed record: EBADMSG");
	ok(authcrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_AEAD_TLS_TYPE, hdr, 13, rec, 37, ref, iv2, 0, NULL, NULL) ==
		   -EINVAL, "CIOCAUTHCRYPT TLS type, src != dst: EINVAL");
	/* a right MAC under wrong padding (one pad byte not 6) */
	memcpy(rec, both + 13, 37);
	memcpy(rec + 37, mac, 20);
	memset(rec + 57, 6, 7);
	rec[58] = 5;
	memcpy(iv2, iv, 16);
	e = docrypt(cfd, c, COP_ENCRYPT, 0, rec, 64, rec, iv2, NULL);
	memcpy(iv2, iv, 16);
	ok(!e && authcrypt(cfd, ses, COP_DECRYPT, COP_FLAG_AEAD_TLS_TYPE, hdr, 13, rec, 64, rec, iv2, 0, NULL, NULL) ==
		   -EBADMSG, "CIOCAUTHCRYPT TLS type, bad padding under a right MAC: EBADMSG");
	fsession(cfd, ses);
	fsession(cfd, h);
	fsession(cfd, c);
}

/* SRTP: CTR over the payload, then the MAC over header and payload. */
static void test_srtp(void)
{
	uint8_t mk[20], iv[16], pkt[64], ref[64], tag[10], reftag[20];
	memset(mk, 0x33, sizeof(mk));
	memset(iv, 0x21, sizeof(iv));
	for (int i = 0; i < 64; i++)
		pkt[i] = (uint8_t)i;
	memcpy(ref, pkt, 64);
	uint32_t ses = 0, h = 0, c = 0;
	int e = session(cfd, CRYPTO_AES_CTR, k16, 16, CRYPTO_SHA1_HMAC, mk, 20, &ses);
	if (!e)
		e = session(cfd, 0, NULL, 0, CRYPTO_SHA1_HMAC, mk, 20, &h);
	if (!e)
		e = session(cfd, CRYPTO_AES_CTR, k16, 16, 0, NULL, 0, &c);
	uint8_t v[16];
	memcpy(v, iv, 16);
	if (!e)
		e = docrypt(cfd, c, COP_ENCRYPT, 0, ref + 12, 52, ref + 12, v, NULL);
	if (!e)
		e = docrypt(cfd, h, COP_ENCRYPT, 0, ref, 64, NULL, NULL, reftag);
	memcpy(v, iv, 16);
	if (!e)
		e = authcrypt(cfd, ses, COP_ENCRYPT, COP_FLAG_AEAD_SRTP_TYPE, pkt, 64, pkt + 12, 52, pkt + 12, v, 10, tag,
			      NULL);
	ok(!e && !memcmp(pkt, ref, 64) && !memcmp(tag, reftag, 10), "CIOCAUTHCRYPT SRTP type: encrypt, then MAC");
	memcpy(v, iv, 16);
	e = authcrypt(cfd, ses, COP_DECRYPT, COP_FLAG_AEAD_SRTP_TYPE, pkt, 64, pkt + 12, 52, pkt + 12, v, 10, tag, NULL);
	ok(!e && pkt[12] == 12 && pkt[63] == 63, "CIOCAUTHCRYPT SRTP type: check, then decrypt");
	memcpy(pkt, ref, 64);
	tag[0] ^= 1;
	memcpy(v, iv, 16);
	ok(authcrypt(cfd, ses, COP_DECRYPT, COP_FLAG_AEAD_SRTP_TYPE, pkt, 64, pkt + 12, 52, pkt + 12, v, 10, tag,
		     NULL) == -EBADMSG, "CIOCAUTHCRYPT SRTP type, a wrong tag: EBADMSG");
	fsession(cfd, ses);
	fsession(cfd, h);
	fsession(cfd, c);
}

/* An open file's sessions are the file's: CRIOGET and dup share them, a
 * forked child uses them, another open does not see them. */
static void test_files(void)
{
	uint32_t ses, clone = 0;
	uint8_t pt[16] = { 0 }, a[16], b[16], iv[16] = { 0 };
	int e = session(cfd, CRYPTO_AES_ECB, k16, 16, 0, NULL, 0, &ses);
	if (!e)
		e = docrypt(cfd, ses, COP_ENCRYPT, 0, pt, 16, a, NULL, NULL);
	if (!e && ioctl(cfd, CRIOGET, &clone))
		e = -errno;
	ok(!e && (int)clone > 2 && (int)clone != cfd, "CRIOGET: fd %u", clone);
	ok(docrypt((int)clone, ses, COP_ENCRYPT, 0, pt, 16, b, NULL, NULL) == 0 && !memcmp(a, b, 16),
	   "the CRIOGET fd shares the sessions");
	close((int)clone);
	int d = dup(cfd);
	ok(d >= 0 && docrypt(d, ses, COP_ENCRYPT, 0, pt, 16, b, iv, NULL) == 0 && !memcmp(a, b, 16),
	   "a dup()ed fd shares the sessions");
	close(d);
	int other = open("/dev/crypto", O_RDWR | O_CLOEXEC);
	ok(other >= 0 && docrypt(other, ses, COP_ENCRYPT, 0, pt, 16, b, NULL, NULL) == -EINVAL,
	   "another open of /dev/crypto has sessions of its own");
	close(other);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		uint8_t c[16];
		_exit(docrypt(cfd, ses, COP_ENCRYPT, 0, pt, 16, c, NULL, NULL) == 0 && !memcmp(a, c, 16) ? 0 : 1);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "a forked child uses the parent's sessions");
	fsession(cfd, ses);
	ok(docrypt(cfd, ses, COP_ENCRYPT, 0, pt, 16, b, NULL, NULL) == -EINVAL, "CIOCFSESSION ends the session");
}

int main(int argc, char **argv)
{
	vdir = argc > 1 ? argv[1] : "/usr/lib/python3/dist-packages/cryptography_vectors";
	cfd = open("/dev/crypto", O_RDWR);
	ok(cfd >= 0, "open(/dev/crypto): %s", cfd >= 0 ? "an fd" : strerror(errno));
	if (cfd < 0)
		return tap_done();
	cipher_file(CRYPTO_AES_CBC, "ciphers/AES/CBC/CBCMMT128.rsp");
	cipher_file(CRYPTO_AES_CBC, "ciphers/AES/CBC/CBCMMT192.rsp");
	cipher_file(CRYPTO_AES_CBC, "ciphers/AES/CBC/CBCMMT256.rsp");
	cipher_file(CRYPTO_AES_CBC, "ciphers/AES/CBC/CBCGFSbox128.rsp");
	cipher_file(CRYPTO_AES_ECB, "ciphers/AES/ECB/ECBMMT128.rsp");
	cipher_file(CRYPTO_AES_ECB, "ciphers/AES/ECB/ECBMMT256.rsp");
	cipher_file(CRYPTO_AES_CTR, "ciphers/AES/CTR/aes-128-ctr.txt");
	cipher_file(CRYPTO_AES_CTR, "ciphers/AES/CTR/aes-256-ctr.txt");
	hash_file(CRYPTO_SHA1, false, false, "hashes/SHA1/SHA1ShortMsg.rsp");
	hash_file(CRYPTO_SHA2_256, false, false, "hashes/SHA2/SHA256ShortMsg.rsp");
	hash_file(CRYPTO_SHA2_512, false, false, "hashes/SHA2/SHA512ShortMsg.rsp");
	hash_file(CRYPTO_SHA2_256, false, true, "hashes/SHA2/SHA256ShortMsg.rsp");
	hash_file(CRYPTO_SHA2_512, false, true, "hashes/SHA2/SHA512LongMsg.rsp");
	hash_file(CRYPTO_SHA1_HMAC, true, false, "HMAC/rfc-2202-sha1.txt");
	hash_file(CRYPTO_SHA2_256_HMAC, true, false, "HMAC/rfc-4231-sha256.txt");
	hash_file(CRYPTO_SHA2_512_HMAC, true, true, "HMAC/rfc-4231-sha512.txt");
	gcm_file("ciphers/AES/GCM/gcmEncryptExtIV128.rsp", false);
	gcm_file("ciphers/AES/GCM/gcmEncryptExtIV256.rsp", false);
	gcm_file("ciphers/AES/GCM/gcmDecrypt128.rsp", true);
	test_write_iv();
	test_reset();
	test_cphash();
	test_info();
	test_names();
	test_errors();
	test_async();
	test_tls();
	test_srtp();
	test_files();
	ok(close(cfd) == 0, "close");
	return tap_done();
}
