/* RFC mode's socket options: the transform socket's key (by bytes or by
 * name) and authentication size, an op socket's direction and IV. */
#include "algd_afalg.h"
#include "keystore.h"
#include "rfc_impl.h"
#include "ualg_afalg.h"
#include "ualg_rfc.h"
#include "kabi.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <string.h>


/* States are sealed to the key's fingerprint, so the same key set by
 * bytes or by name restores the same states. */
static int setkey_bytes(void *tfm_sock, const uint8_t *key, size_t len)
{
	struct alg_sock *sk = tfm_sock;
	uint8_t fp[RFC_FP_LEN];
	int r = rfc_state_fingerprint(key, len, true, fp);
	if (!r)
		r = ualg_tfm_setkey(sk->tfm, key, len);
	if (!r)
		memcpy(rfc_of(sk)->keyfp, fp, sizeof(fp));
	return r;
}

static int set_key(struct alg_sock *sk, const struct afalg_optval *v, bool by_name)
{
	if (v->too_big)
		return -ENOMEM;
	if (v->fault)
		return -EFAULT;
	int err;
	struct key *k = by_name ? afalg_named_key(v, &err) : NULL;
	if (by_name && !k)
		return -err;
	if (!ualg_tfm_has_setkey(sk->tfm))
		return -ENOSYS;
	return by_name ? keystore_use(k, setkey_bytes, sk) : setkey_bytes(sk, v->data, v->len);
}

static int tfm_option(struct alg_sock *sk, int optname, const struct afalg_optval *v)
{
	if (sk->children != sk->nokey_children)
		return -EBUSY;
	if (!sk->type)
		return -ENOPROTOOPT;
	switch (optname) {
	case ALG_SET_KEY:
		return set_key(sk, v, false);
	case UALG_SET_KEY_BY_NAME:
		return set_key(sk, v, true);
	case ALG_HASH_SET_KEY:
		return sk->type == &afalg_type_rfc_hash ? set_key(sk, v, false) : -ENOPROTOOPT;
	case ALG_SKCIPHER_SET_KEY:
		return sk->type == &afalg_type_rfc_skcipher ? set_key(sk, v, false) : -ENOPROTOOPT;
	case ALG_AEAD_SET_KEY:
		return sk->type == &afalg_type_rfc_aead ? set_key(sk, v, false) : -ENOPROTOOPT;
	case ALG_SET_AEAD_AUTHSIZE:
		return sk->type == &afalg_type_rfc_aead ? ualg_aead_setauthsize(sk->tfm, v->optlen)
							: -ENOPROTOOPT;
	default:
		return -ENOPROTOOPT;
	}
}

static unsigned ivsize_of(const struct ualg_tfm *tfm)
{
	return tfm->alg->type == UALG_ALG_AEAD ? tfm->alg->u.aead.ivsize : tfm->alg->u.skcipher.ivsize;
}

/* The direction or IV of what is written next: not while text waits. */
static int op_option(struct alg_sock *op, bool is_op, const struct afalg_optval *v)
{
	struct rfc_op *c = ctx_of(op);
	const struct ualg_tfm *tfm = afalg_tfm(op);

	if (v->fault)
		return -EFAULT;
	if (c->in.used)
		return -EBUSY;
	if (is_op) {
		int32_t val;
		if (v->len != sizeof(val))
			return -EINVAL;
		memcpy(&val, v->data, sizeof(val));
		if (val != ALG_AEAD_OP_ENCRYPT && val != ALG_AEAD_OP_DECRYPT)
			return -EINVAL;
		c->enc = val == ALG_AEAD_OP_ENCRYPT;
		return 0;
	}
	if (v->len != ivsize_of(tfm) || v->len > sizeof(c->iv))
		return -EINVAL;
	memcpy(c->iv, v->data, v->len);
	return 0;
}

int rfc_serve_setsockopt(struct alg_sock *sk, int level, int optname, const struct afalg_optval *v)
{
	if (level != KABI_SOL_ALG)
		return -ENOPROTOOPT;
	if (!sk->connected)
		return tfm_option(sk, optname, v);
	const bool sk_type = sk->type == &afalg_type_rfc_skcipher;
	const bool aead = sk->type == &afalg_type_rfc_aead;
	const bool comp = sk->type == &afalg_type_rfc_comp;
	switch (optname) {
	case ALG_COMPRESS_OP:
		return comp ? op_option(sk, true, v) : -ENOPROTOOPT;
	case ALG_SKCIPHER_OP:
	case ALG_SKCIPHER_SET_IV:
		return sk_type ? op_option(sk, optname == ALG_SKCIPHER_OP, v) : -ENOPROTOOPT;
	case ALG_AEAD_OP:
	case ALG_AEAD_SET_IV:
		return aead ? op_option(sk, optname == ALG_AEAD_OP, v) : -ENOPROTOOPT;
	default:
		return -ENOPROTOOPT;
	}
}
