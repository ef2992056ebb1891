/* Named keys (see keystore.h).  The key bytes live in the secure heap
 * (secmem.c: locked, never in a core, cleansed on free); names and allow
 * lists are not secret and live in ordinary memory.  Only the event loop's
 * thread calls in here (ring control requests are served there too), so
 * there is no lock. */
#include "keystore.h"
#include "policy.h"
#include "msg.h"
#include "proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct key {
	char name[UALG_KEY_NAME_MAX + 1];
	struct policy allow;
	uint8_t *bytes;		/* secure heap */
	size_t len;
	uint64_t uses;
};

/* Sorted by name, so that LIST pages through a stable order. */
static struct key *keys[KEYSTORE_MAX_KEYS];
static size_t nkeys;
static uid_t self_uid = (uid_t)-1;

void keystore_set_self(uid_t uid)
{
	self_uid = uid;
}

int keystore_caller(int fd, struct key_caller *who)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || len != sizeof(cred))
		return -EACCES;
	who->uid = cred.uid;
	who->gid = cred.gid;
	len = sizeof(who->groups);
	/* A peer in more groups than fit: ERANGE, and only the primary
	 * group counts (never a wider grant). */
	who->ngroups = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, who->groups, &len) ? 0 :
		       len / sizeof(gid_t);
	return 0;
}

/* [A-Za-z0-9._-], the first a letter or digit: safe in a shell, a log
 * line, a file name and a keyring description. */
static bool name_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return !first && (c == '.' || c == '_' || c == '-');
}

static bool valid_name(const char *s, size_t len)
{
	if (len == 0 || len > UALG_KEY_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(s[i], i == 0))
			return false;
	return true;
}

/* The index of name, or where it would go (*found false). */
static size_t find(const char *name, size_t len, bool *found)
{
	size_t lo = 0, hi = nkeys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(keys[mid]->name, name, len);
		if (c == 0 && keys[mid]->name[len] != '\0')
			c = 1;	/* longer than name, same prefix */
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static void key_free(struct key *k)
{
	if (!k)
		return;
	ualg_secure_free(k->bytes);	/* cleanses the block */
	free(k);
}

static int do_add(const uint8_t *body, size_t len)
{
	struct ualg_key_add_msg m;

	if (ualg_decode_key_add(body, len, &m))
		return KEYSTORE_BAD_FRAME;
	const struct ualg_key_add a = m.hdr;
	const char *name = m.name;
	const char *allow = m.allow;
	const uint8_t *bytes = m.key;
	struct policy p = { 0 };
	if (!valid_name(name, a.name_len) || a.key_len == 0 ||
	    policy_parse_ids(&p, allow, a.allow_len))
		return -EINVAL;
	bool found;
	size_t at = find(name, a.name_len, &found);
	if (found)
		return -EEXIST;
	if (nkeys == KEYSTORE_MAX_KEYS)
		return -ENOSPC;
	struct key *k = calloc(1, sizeof(*k));
	if (!k || !(k->bytes = ualg_secure_zalloc(a.key_len))) {
		free(k);
		return -ENOMEM;
	}
	memcpy(k->name, name, a.name_len);
	memcpy(k->bytes, bytes, a.key_len);
	k->len = a.key_len;
	k->allow = p;
	memmove(&keys[at + 1], &keys[at], (nkeys - at) * sizeof(keys[0]));
	keys[at] = k;
	nkeys++;
	return 0;
}

static int do_del(const uint8_t *body, size_t len)
{
	struct ualg_key_name_msg m;

	if (ualg_decode_key_name(body, len, &m))
		return KEYSTORE_BAD_FRAME;
	const struct ualg_key_name q = m.hdr;
	const char *name = m.name;
	if (!valid_name(name, q.name_len))
		return -EINVAL;
	bool found;
	size_t at = find(name, q.name_len, &found);
	if (!found)
		return -ENOKEY;
	key_free(keys[at]);
	memmove(&keys[at], &keys[at + 1], (nkeys - at - 1) * sizeof(keys[0]));
	keys[--nkeys] = NULL;
	return 0;
}

/* Names, lengths, allow lists and use counts: never a key byte. */
static int do_list(const uint8_t *body, size_t len, uint8_t *out, size_t outsize,
		   size_t *outlen)
{
	struct ualg_key_list_req q;
	int n = 0;

	if (ualg_decode_key_list_req(body, len, &q))
		return KEYSTORE_BAD_FRAME;
	for (size_t i = q.start; i < nkeys && (size_t)(n + 1) * sizeof(struct ualg_key_rec) <= outsize;
	     i++, n++) {
		struct ualg_key_rec r;
		memset(&r, 0, sizeof(r));
		memcpy(r.name, keys[i]->name, sizeof(r.name));
		if (policy_format(&keys[i]->allow, r.allow, sizeof(r.allow)))
			return -EOVERFLOW;	/* cannot happen: parsed from no more */
		r.key_len = (uint32_t)keys[i]->len;
		r.uses = keys[i]->uses;
		memcpy(out + (size_t)n * sizeof(r), &r, sizeof(r));
	}
	*outlen = (size_t)n * sizeof(struct ualg_key_rec);
	return n;
}

int keystore_request(uint16_t type, const uint8_t *body, size_t len, bool admin,
		     uint8_t *out, size_t outsize, size_t *outlen)
{
	*outlen = 0;
	switch (type) {
	case UALG_MSG_KEY_LIST:
		return do_list(body, len, out, outsize, outlen);
	case UALG_MSG_KEY_ADD:
		if (ualg_decode_key_fixed(type, len))
			return KEYSTORE_BAD_FRAME;
		return admin ? do_add(body, len) : -EPERM;
	case UALG_MSG_KEY_DEL:
		if (ualg_decode_key_fixed(type, len))
			return KEYSTORE_BAD_FRAME;
		return admin ? do_del(body, len) : -EPERM;
	}
	return KEYSTORE_BAD_FRAME;
}

/* Root always (it could read algd's memory anyway); anyone on the list;
 * with an empty list, the user whose private algd this is (none when algd
 * dropped to another uid: sharing that uid gives no key). */
static bool may_use(const struct key *k, const struct key_caller *who)
{
	if (who->uid == 0)
		return true;
	if (k->allow.n == 0)
		return who->uid == self_uid;
	return policy_matches(&k->allow, who->uid, who->gid, who->groups, who->ngroups);
}

struct key *keystore_find(const char *name, size_t len, const struct key_caller *who, int *err)
{
	bool found;

	if (!valid_name(name, len)) {
		*err = EINVAL;
		return NULL;
	}
	size_t at = find(name, len, &found);
	if (!found) {
		*err = ENOKEY;
		return NULL;
	}
	if (!may_use(keys[at], who)) {
		*err = EACCES;
		return NULL;
	}
	return keys[at];
}

int keystore_use(struct key *k, int (*use)(void *ctx, const uint8_t *key, size_t len), void *ctx)
{
	int r = use(ctx, k->bytes, k->len);

	if (r == 0)
		k->uses++;
	return r;
}

static int tfm_setkey(void *tfm, const uint8_t *key, size_t len)
{
	return ualg_tfm_setkey(tfm, key, len);
}

int keystore_setkey(struct ualg_tfm *tfm, struct key *k)
{
	return keystore_use(k, tfm_setkey, tfm);
}

void keystore_clear(void)
{
	while (nkeys)
		key_free(keys[--nkeys]), keys[nkeys] = NULL;
}
