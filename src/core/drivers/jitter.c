/* jitterentropy_rng, as crypto/jitterentropy_kcapi.c names it: the kernel's
 * noise source (CPU timing jitter, SP 800-90B), which its DRBGs seed from.
 * Here the name serves the operating system's entropy source instead,
 * getrandom(2): like the kernel's, it takes no seed (a seed is ignored)
 * and every read is fresh entropy, never a deterministic stream.  It has
 * no known-answer vectors; the kernel tests it with alg_test_null. */
#include "others.h"
#include "openssl.h"

#include <errno.h>
#include <sys/random.h>

static int jent_seed(struct ualg_tfm *tfm, const uint8_t *seed, size_t len)
{
	(void)tfm, (void)seed, (void)len;
	return 0;
}

static int jent_generate(struct ualg_tfm *tfm, uint8_t *out, size_t len)
{
	(void)tfm;
	while (len) {
		ssize_t n = getrandom(out, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		out += n;
		len -= (size_t)n;
	}
	return 0;
}

int ualg_jitter_register(void)
{
	struct ualg_alg *a = ualg_openssl_alloc("jitterentropy_rng", "jitterentropy_rng",
						UALG_ALG_RNG, 100);

	if (!a)
		return -ENOMEM;
	a->module = "getrandom";
	a->u.rng = (struct ualg_rng_ops){ .seedsize = 0, .seed = jent_seed, .generate = jent_generate };
	return ualg_openssl_reg(a);
}
