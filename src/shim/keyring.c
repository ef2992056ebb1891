/* ALG_SET_KEY_BY_KEY_SERIAL: a key read from the caller's keyrings
 * (keyctl), or a "ualg:NAME" reference to a key algd stores. */
#include "interpose.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A "user" key whose description is "ualg:NAME" refers to the key algd
 * stores as NAME (algctl key add): its payload is ignored, and the name is
 * what goes to algd, so an administrator can hand a program a keyring
 * reference that holds no secret.  desc is KEYCTL_DESCRIBE's
 * "type;uid;gid;perm;description".  Copies NAME into *out and returns
 * true when desc is such a key. */
static bool named_key_ref(const char *desc, uint8_t **out, size_t *outlen)
{
	const char *d = desc;

	if (strncmp(d, "user;", 5))
		return false;
	for (int field = 0; field < 4; field++) {	/* past type, uid, gid, perm */
		d = strchr(d, ';');
		if (!d)
			return false;
		d++;
	}
	if (strncmp(d, "ualg:", 5))
		return false;
	d += 5;
	const size_t n = strlen(d);
	if (!(*out = malloc(n ? n : 1)))
		return false;
	memcpy(*out, d, n);
	*outlen = n;	/* algd checks the name itself (EINVAL) */
	return true;
}

/* ALG_SET_KEY_BY_KEY_SERIAL, as Linux 6.2 added it: the payload of a
 * "user" or "logon" key in the caller's keyrings becomes the key.  The
 * kernel reads it itself; here it is read with the caller's rights, so a
 * key the caller may search but not read (every "logon" key) cannot be
 * used: EACCES.  Returns 0 with the payload, or a positive errno; *by_name
 * is set when the key is a "ualg:NAME" reference and *out holds NAME. */
int read_key_by_serial(const void *val, socklen_t len, uint8_t **out, size_t *outlen,
		       bool *by_name)
{
	int32_t serial;
	char desc[256];

	if (len != sizeof(serial))
		return EINVAL;
	if (copy_in(&serial, val, sizeof(serial)))
		return EFAULT;
	long n = syscall(SYS_keyctl, 6 /* KEYCTL_DESCRIBE */, serial, desc, sizeof(desc) - 1);
	if (n < 0)
		return errno;
	desc[n < (long)sizeof(desc) ? n : (long)sizeof(desc) - 1] = '\0';
	if ((*by_name = named_key_ref(desc, out, outlen)))
		return 0;
	const size_t tlen = strcspn(desc, ";");
	if (!(tlen == 4 && !strncmp(desc, "user", 4)) && !(tlen == 5 && !strncmp(desc, "logon", 5)))
		return ENOPROTOOPT;	/* encrypted and trusted keys are not supported */
	long size = syscall(SYS_keyctl, 11 /* KEYCTL_READ */, serial, NULL, 0);
	if (size < 0)
		return errno == EOPNOTSUPP ? EACCES : errno;
	if (size >= (long)KABI_OPTMEM_MAX)
		return ENOMEM;	/* sock_kmalloc() past optmem_max */
	uint8_t *buf = malloc(size ? (size_t)size : 1);
	if (!buf)
		return ENOMEM;
	n = syscall(SYS_keyctl, 11, serial, buf, size);
	if (n < 0 || n > size) {
		int e = n < 0 ? errno : EIO;
		explicit_bzero(buf, (size_t)size);
		free(buf);
		return e;
	}
	*out = buf;
	*outlen = (size_t)n;
	return 0;
}
