/* RFC mode: the interface Herbert Xu proposed on 7 Sep 2010
 * ("RFC: Crypto API User-interface", ../shared/seeds/002-...), which Linux
 * did not merge, served by algd next to the kernel-compatible one.
 *
 * Opt-in per program: under `ualg-run --rfc` (environment UALG_RFC=1) a
 * socket(AF_ALG, SOCK_STREAM, 0) is an RFC transform socket ("hash",
 * "skcipher", "aead" or "compression"); without it,
 * SOCK_STREAM is ESOCKTNOSUPPORT as on Linux, and SOCK_SEQPACKET sockets
 * behave as the kernel's in both cases.
 *
 *	tfmfd = socket(AF_ALG, SOCK_STREAM, 0);
 *	bind(tfmfd, (struct sockaddr *)&alg, sizeof(alg));
 *	setsockopt(tfmfd, SOL_ALG, ALG_HASH_SET_KEY, key, keylen);
 *	listen(tfmfd, 0);                 // accept() before listen(): EINVAL
 *	opfd = accept(tfmfd, NULL, 0);
 *	adfd = accept(tfmfd, NULL, 0);    // aead: the 2nd accept is opfd's AD fd
 *
 * Op fds are byte streams, as pipes: a read may return fewer bytes than
 * asked, there are no message boundaries, a write blocks while the op's
 * buffer (SO_SNDBUF, default 212992 bytes) is full, O_NONBLOCK and
 * MSG_DONTWAIT give EAGAIN instead.
 *
 * hash:  send(opfd, data, n, MSG_MORE) keeps the hash open; a read then
 *        returns the partial state (a sealed blob of
 *        UALG_RFC_STATE_LEN bytes); send(opfd, state, n, MSG_OOB) restores
 *        one, on any op fd whose transform has the same algorithm (driver)
 *        and key, in the same algd (a restart invalidates all states):
 *        EBADMSG for a blob that does not open (forged, altered, truncated,
 *        another algd's) or belongs to another driver or key, EINVAL for
 *        one of another length.  A send without MSG_MORE
 *        finishes the message; the next reads return the digest.
 * skcipher: setsockopt(opfd, SOL_ALG, ALG_SKCIPHER_OP, &op, sizeof(op))
 *        and ALG_SKCIPHER_SET_IV (exactly ivsize bytes) set the direction
 *        and IV (EBUSY while data is queued); reads return the result of
 *        what was written, whole blocks as they come, the tail once a
 *        write without MSG_MORE ended the message.  A writer blocked on a
 *        full buffer is relieved by a reader (another thread) of the fd.
 * aead:  text on opfd, associated data on adfd; ALG_AEAD_OP and
 *        ALG_AEAD_SET_IV on opfd (ALG_SET_AEAD_AUTHSIZE on tfmfd as
 *        usual); the first read of opfd runs the operation over all that
 *        was written (ciphertext || tag, or the plaintext; EBADMSG, and
 *        nothing released, when the tag does not match); the next reads
 *        return the rest.  The whole message must fit in the buffer.
 * compression: setsockopt(opfd, SOL_ALG, ALG_COMPRESS_OP, &op, sizeof(op))
 *        (ALG_COMPRESS_OP_COMPRESS or _DECOMPRESS; EBUSY while data is
 *        queued); a write without MSG_MORE ends the message, the first
 *        read then (de)compresses it whole (the kernel's block formats:
 *        raw deflate, LZ4 block, LZO1X, a zstd frame) and the next reads
 *        return the rest; EBADMSG for a stream that does not decode, EFBIG
 *        past 1 MiB of output, no output either way.  Until that read,
 *        writes wait (one message at a time); the message must fit in
 *        the buffer.
 *
 * The op and the IV may also be set through sendmsg(2) cmsgs, as the mail
 * says: the kernel's ALG_SET_OP and ALG_SET_IV (struct af_alg_iv) act as
 * the type's options above, before the data (EBUSY while data is queued,
 * EINVAL for a malformed cmsg or an IV of the wrong length; on a
 * compression op an IV must be empty); hash op fds ignore cmsgs, as
 * Linux's do.
 *
 * Values far from the kernel's own SOL_ALG options (1-7) and from
 * UALG_SET_KEY_BY_NAME (0x7501, ualg_afalg.h); the kernel answers them
 * ENOPROTOOPT.  ALG_*_SET_KEY are valid on RFC transform sockets of that
 * type only (ALG_SET_KEY works there too); the op options on RFC op fds
 * of that type only, else ENOPROTOOPT. */
#ifndef UALG_RFC_H
#define UALG_RFC_H

#define ALG_HASH_SET_KEY	0x7510
#define ALG_SKCIPHER_SET_KEY	0x7511
#define ALG_AEAD_SET_KEY	0x7512
#define ALG_SKCIPHER_OP		0x7513
#define ALG_SKCIPHER_SET_IV	0x7514
#define ALG_AEAD_OP		0x7515
#define ALG_AEAD_SET_IV		0x7516
#define ALG_COMPRESS_OP		0x7517

/* Values of ALG_*_OP (an int), as the kernel's ALG_OP_*. */
#define ALG_AEAD_OP_DECRYPT	0
#define ALG_AEAD_OP_ENCRYPT	1
#define ALG_SKCIPHER_OP_DECRYPT	0
#define ALG_SKCIPHER_OP_ENCRYPT	1
#define ALG_COMPRESS_OP_DECOMPRESS	0
#define ALG_COMPRESS_OP_COMPRESS	1

/* Partial hash states: a version 1 blob is always this long, whatever
 * the algorithm, so that a program can size its buffer (statelen). */
#define UALG_RFC_STATE_VERSION	1
#define UALG_RFC_STATE_LEN	512

#endif
