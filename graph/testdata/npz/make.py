#!/usr/bin/env python3
"""Writes the .npz fixtures of graph/npz_test.go with the standard library
alone, as scipy.sparse.save_npz writes them: numpy.savez (zip stored) or
numpy.savez_compressed (zip deflated) of the matrix's arrays, each entry an
.npy file opened with force_zip64=True as NumPy opens it, its header a
dict literal padded with spaces to a multiple of 64 bytes.

The matrix: 6 x 6 with the entries of testdata/snap.txt (0,1) (0,2) (1,2)
(2,3) (3,3) (3,4) (2,0); vertex 5 has none. Run it in this directory.
"""
import struct
import zipfile

ENTRIES = [(0, 1), (0, 2), (1, 2), (2, 3), (3, 3), (3, 4), (2, 0)]
N = 6


def npy(descr, shape, payload, fortran=False):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, fortran, dims)
    pad = (64 - (10 + len(d) + 1) % 64) % 64
    h = d + " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + payload


def ints(descr, xs):
    order, kind, size = descr[0], descr[1], int(descr[2:])
    code = {(4, "i"): "i", (8, "i"): "q", (4, "u"): "I", (8, "u"): "Q"}[(size, kind)]
    return struct.pack(("<" if order in "<|" else ">") + code * len(xs), *xs)


def save(name, arrays, compressed):
    method = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(name, "w", compression=method, allowZip64=True) as z:
        for key, data in arrays:
            with z.open(key + ".npy", "w", force_zip64=True) as f:
                f.write(data)


def common(fmt, shape=(N, N), nnz=len(ENTRIES), fdescr="|S3"):
    f = fmt.encode() if fdescr[1] == "S" else struct.pack("<3I", *map(ord, fmt))
    return [
        ("format", npy(fdescr, (), f)),
        ("shape", npy("<i8", (2,), ints("<i8", list(shape)))),
        ("data", npy("<f8", (nnz,), struct.pack("<%dd" % nnz, *[1.0] * nnz))),
    ]


def compressed_arrays(fmt, idx):
    major = 0 if fmt == "csr" else 1
    lists = [sorted(e[1 - major] for e in ENTRIES if e[major] == v) for v in range(N)]
    indptr, indices = [0], []
    for l in lists:
        indices += l
        indptr.append(len(indices))
    return [("indices", npy(idx, (len(indices),), ints(idx, indices))), ("indptr", npy(idx, (N + 1,), ints(idx, indptr)))]


rows = [e[0] for e in ENTRIES][::-1]  # coo entries in any order
cols = [e[1] for e in ENTRIES][::-1]
save("csr-i4-deflate.npz", compressed_arrays("csr", "<i4") + common("csr"), True)
save("csr-i8-stored.npz", compressed_arrays("csr", "<i8") + common("csr") + [("_is_array", npy("|b1", (), b"\x01"))], False)
save("csr-be-unicode.npz", compressed_arrays("csr", ">i4") + common("csr", fdescr="<U3"), True)
save("csc-i4.npz", compressed_arrays("csc", "<i4") + common("csc"), True)
save("coo-i4.npz", [("row", npy("<i4", (7,), ints("<i4", rows))), ("col", npy("<i4", (7,), ints("<i4", cols)))] + common("coo"), True)
save("coo-coords-i8.npz", [("coords", npy("<i8", (2, 7), ints("<i8", rows + cols)))] + common("coo"), True)
save("coo-coords-fortran.npz", [("coords", npy("<i8", (2, 7), ints("<i8", [x for p in zip(rows, cols) for x in p]), fortran=True))] + common("coo"), False)
# Refused: a layout tcgen does not read, a non-square matrix, an index out
# of the shape, a negative index, an array NumPy can only unpickle.
save("bad-bsr.npz", compressed_arrays("csr", "<i4") + common("bsr"), True)
save("bad-nonsquare.npz", compressed_arrays("csr", "<i4") + common("csr", shape=(N, N + 1)), True)
save("bad-range.npz", [("row", npy("<i4", (1,), ints("<i4", [0]))), ("col", npy("<i4", (1,), ints("<i4", [N])))] + common("coo", nnz=1), True)
save("bad-negative.npz", [("row", npy("<i4", (1,), ints("<i4", [0]))), ("col", npy("<i4", (1,), ints("<i4", [-1])))] + common("coo", nnz=1), True)
save("bad-object.npz", [("format", npy("|O", (), b"\x80\x04N."))] + common("csr")[1:], True)
