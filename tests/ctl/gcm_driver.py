#!/usr/bin/env python3
"""Under ualg-run: an AF_ALG aead socket bound to the given gcm(aes) driver
gives test case 4 of the GCM specification (McGrew and Viega), and refuses
a tampered tag with EBADMSG.  usage: gcm_driver.py DRIVER"""
import errno
import socket
import sys

KEY = bytes.fromhex("feffe9928665731c6d6a8f9467308308")
IV = bytes.fromhex("cafebabefacedbaddecaf888")
AAD = bytes.fromhex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
PT = bytes.fromhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                   "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
CT_TAG = bytes.fromhex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                       "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
                       "5bc94fbc3221a5db94fae95ae7121a47")

t = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
t.bind(("aead", sys.argv[1]))
t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, KEY)
op, _ = t.accept()
op.sendmsg_afalg([AAD + PT], op=socket.ALG_OP_ENCRYPT, iv=IV, assoclen=len(AAD))
enc = op.recv(len(AAD) + len(CT_TAG))
op.close()
op, _ = t.accept()
bad = bytearray(AAD + CT_TAG)
bad[-1] ^= 1
op.sendmsg_afalg([bytes(bad)], op=socket.ALG_OP_DECRYPT, iv=IV, assoclen=len(AAD))
try:
    op.recv(len(AAD) + len(PT))
    refused = False
except OSError as e:
    refused = e.errno == errno.EBADMSG
ok = enc == AAD + CT_TAG and refused
print("%s: encryption %s, tampered tag %s" % (sys.argv[1], "as specified" if enc == AAD + CT_TAG else "WRONG",
                                               "EBADMSG" if refused else "NOT refused"))
sys.exit(0 if ok else 1)
