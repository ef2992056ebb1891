/* The IPsec AEAD wrappers, as crypto/gcm.c's rfc4106 and rfc4543, ccm.c's
 * rfc4309 and chacha20poly1305.c's rfc7539esp: the key ends with a salt
 * that forms the nonce with the 8-byte per-packet IV, and the last 8 bytes
 * of the associated data (where ESP carries that IV) are not authenticated
 * again, except by rfc4543, which authenticates everything and encrypts
 * nothing (GMAC). */
#include "../template.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum ipsec_kind { RFC4106, RFC4309, RFC4543, RFC7539ESP };

struct ipsec_variant {
	const char *tmpl;
	enum ipsec_kind kind;
	unsigned saltlen, inner_ivsize;
};

static const struct ipsec_variant variants[] = {
	[RFC4106] = { "rfc4106", RFC4106, 4, 12 },
	[RFC4309] = { "rfc4309", RFC4309, 3, 16 },
	[RFC4543] = { "rfc4543", RFC4543, 4, 12 },
	[RFC7539ESP] = { "rfc7539esp", RFC7539ESP, 4, 12 },
};

struct ipsec_ctx {
	struct ualg_tfm *child;		/* first, for ualg_tmpl_child() */
	uint8_t salt[4];
};

static const struct ipsec_variant *variant_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->priv;
}

static int ipsec_setkey(struct ualg_tfm *tfm, const uint8_t *key, size_t len)
{
	const struct ipsec_variant *v = variant_of(tfm);
	struct ipsec_ctx *ctx = tfm->ctx;

	if (len < v->saltlen)
		return -EINVAL;
	len -= v->saltlen;
	memcpy(ctx->salt, key + len, v->saltlen);
	return ualg_tfm_setkey(ctx->child, key, len);
}

/* crypto_rfc4106_setauthsize() and rfc4309's: the ESP ICV sizes;
 * rfc4543 and rfc7539esp: the full tag only. */
static int ipsec_setauthsize(struct ualg_tfm *tfm, unsigned authsize)
{
	switch (variant_of(tfm)->kind) {
	case RFC4106:
	case RFC4309:
		if (authsize != 8 && authsize != 12 && authsize != 16)
			return -EINVAL;
		break;
	case RFC4543:
	case RFC7539ESP:
		if (authsize != 16)
			return -EINVAL;
		break;
	}
	return ualg_aead_setauthsize(ualg_tmpl_child(tfm), authsize);
}

/* The inner nonce: salt || IV, and for CCM the flags byte for a 4-byte
 * length field in front and the counter behind. */
static void inner_iv(const struct ualg_tfm *tfm, const uint8_t *iv, uint8_t *out)
{
	const struct ipsec_variant *v = variant_of(tfm);
	const struct ipsec_ctx *ctx = tfm->ctx;
	size_t off = 0;

	memset(out, 0, v->inner_ivsize);
	if (v->kind == RFC4309)
		out[off++] = 3;
	memcpy(out + off, ctx->salt, v->saltlen);
	memcpy(out + off + v->saltlen, iv, 8);
}

static int ipsec_crypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req, bool enc)
{
	const struct ipsec_variant *v = variant_of(tfm);
	struct ualg_tfm *child = ualg_tmpl_child(tfm);
	uint8_t iv[16];
	struct ualg_aead_req sub = *req;

	if (v->kind == RFC7539ESP ? req->assoclen < 8 : req->assoclen != 16 && req->assoclen != 20)
		return -EINVAL;	/* crypto_ipsec_check_assoclen() */
	inner_iv(tfm, req->iv, iv);
	sub.iv = iv;
	sub.assoclen = req->assoclen - 8;
	if (v->kind == RFC4543) {
		/* Everything before the tag is associated data. */
		const size_t textlen = enc ? req->cryptlen : req->cryptlen - tfm->authsize;
		if (req->text != req->aad + req->assoclen)
			return -EINVAL;
		sub.assoclen = req->assoclen + textlen;
		sub.text = req->text + textlen;
		sub.cryptlen = req->cryptlen - textlen;
	}
	int r = enc ? ualg_aead_encrypt(child, &sub) : ualg_aead_decrypt(child, &sub);
	ualg_wipe(iv, sizeof(iv));
	return r;
}

static int ipsec_encrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return ipsec_crypt(tfm, req, true);
}

static int ipsec_decrypt(struct ualg_tfm *tfm, const struct ualg_aead_req *req)
{
	return ipsec_crypt(tfm, req, false);
}

static struct ualg_alg *ipsec_create(const struct ipsec_variant *v, const char *inner_name, int *err)
{
	struct ualg_alg *inner = ualg_alg_lookup(UALG_ALG_AEAD, inner_name, err);
	if (!inner)
		return NULL;
	struct ualg_alg *inst = NULL;
	if (inner->u.aead.ivsize != v->inner_ivsize || inner->blocksize != 1) {
		*err = EINVAL;
	} else if ((inst = ualg_instance_alloc(v->tmpl, UALG_ALG_AEAD, &inner, 1, err))) {
		inst->ctxsize = sizeof(struct ipsec_ctx);
		inst->priv = v;
		inst->init_tfm = ualg_tmpl_init_child;
		inst->exit_tfm = ualg_tmpl_exit_child;
		inst->u.aead = (struct ualg_aead_ops){
			.ivsize = 8,
			.maxauthsize = inner->u.aead.maxauthsize,
			.setkey = ipsec_setkey,
			.setauthsize = ipsec_setauthsize,
			.encrypt = ipsec_encrypt,
			.decrypt = ipsec_decrypt,
		};
	}
	ualg_alg_put(inner);
	return inst;
}

static struct ualg_alg *create_one_arg(enum ipsec_kind kind, const char *const *args, unsigned nargs,
				       int *err)
{
	if (nargs != 1) {
		*err = EINVAL;
		return NULL;
	}
	return ipsec_create(&variants[kind], args[0], err);
}

static struct ualg_alg *rfc4106_create(const char *const *args, unsigned nargs, int *err)
{
	return create_one_arg(RFC4106, args, nargs, err);
}

static struct ualg_alg *rfc4309_create(const char *const *args, unsigned nargs, int *err)
{
	return create_one_arg(RFC4309, args, nargs, err);
}

static struct ualg_alg *rfc4543_create(const char *const *args, unsigned nargs, int *err)
{
	return create_one_arg(RFC4543, args, nargs, err);
}

/* rfc7539esp(chacha20,poly1305) wraps rfc7539(chacha20,poly1305), which
 * this library has as one driver rather than as a template over two. */
static struct ualg_alg *rfc7539esp_create(const char *const *args, unsigned nargs, int *err)
{
	char inner[UALG_MAX_ALG_NAME];

	if (nargs != 2) {
		*err = EINVAL;
		return NULL;
	}
	if ((size_t)snprintf(inner, sizeof(inner), "rfc7539(%s,%s)", args[0], args[1]) >= sizeof(inner)) {
		*err = ENAMETOOLONG;
		return NULL;
	}
	struct ualg_alg *inst = ipsec_create(&variants[RFC7539ESP], inner, err);
	if (inst)
		snprintf(inst->name, sizeof(inst->name), "rfc7539esp(%s,%s)", args[0], args[1]);
	return inst;
}

const struct ualg_template ualg_tmpl_rfc4106 = { .name = "rfc4106", .create = rfc4106_create };
const struct ualg_template ualg_tmpl_rfc4309 = { .name = "rfc4309", .create = rfc4309_create };
const struct ualg_template ualg_tmpl_rfc4543 = { .name = "rfc4543", .create = rfc4543_create };
const struct ualg_template ualg_tmpl_rfc7539esp = { .name = "rfc7539esp", .create = rfc7539esp_create };
