/* The native API in brief: SHA-256 of "abc" (FIPS 180-2's example)
 * through libualg's rings.  Build against an installed libualg with
 *     cc ring-sample.c $(pkg-config --cflags --libs ualg)
 * It talks to the algd at $UALG_SOCKET (or the default path). */
#include <ualg.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
	struct ualg_ring ring;
	struct ualg_tfm_info info;
	struct ualg_cqe *cqe;
	int r = ualg_ring_init(&ring, 8, 4096);

	if (r < 0) {
		fprintf(stderr, "ring-sample: cannot reach algd: %s\n", strerror(-r));
		return 1;
	}
	int tfm = ualg_ring_open_tfm(&ring, "hash", "sha256", &info);
	if (tfm < 0) {
		fprintf(stderr, "ring-sample: sha256: %s\n", strerror(-tfm));
		return 1;
	}
	/* Data and digest live in the buffer area shared with algd. */
	unsigned char *buf = ualg_ring_buf(&ring), *digest = buf + 64;
	memcpy(buf, "abc", 3);
	struct ualg_sqe *sqe = ualg_get_sqe(&ring);
	ualg_prep_hash(&ring, sqe, tfm, buf, 3, digest);
	ualg_sqe_set_data64(sqe, 1);
	ualg_submit(&ring);
	r = ualg_wait_cqe(&ring, &cqe);
	if (r < 0 || cqe->res < 0) {
		fprintf(stderr, "ring-sample: hash failed: %s\n", strerror(r < 0 ? -r : -cqe->res));
		return 1;
	}
	ualg_cqe_seen(&ring, cqe);
	for (unsigned i = 0; i < info.digestsize; i++)
		printf("%02x", digest[i]);
	putchar('\n');
	ualg_ring_close_tfm(&ring, tfm);
	ualg_ring_exit(&ring);
	return 0;
}
