#!/usr/bin/env bash
# Packs this machine's Debian Open MPI (openmpi-bin, libopenmpi3 and the
# libraries they load) into .gpu/ompi.tgz, for a GPU machine without
# mpirun: scripts/gpu-mpi.sh unpacks it under /tmp/ompi and relocates it
# with OPAL_PREFIX. Network transports (UCX, libfabric, verbs) are left
# out: their plugins fail to load and the ranks talk through shared memory.
#   sudo apt-get install openmpi-bin libopenmpi-dev; bash scripts/ompi-pack.sh
set -euo pipefail
dst=.gpu/ompi
rm -rf "$dst" && mkdir -p "$dst"
{
  for p in openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-2.1-7; do
    dpkg -L "$p"
  done
  ls /lib/x86_64-linux-gnu/libudev.so.1* /lib/x86_64-linux-gnu/libnuma.so.1* /lib/x86_64-linux-gnu/libmunge.so.2*
} | grep -v -e /share/doc -e /share/man -e java -e mpifh -e mpi_cxx | while read -r f; do
  [ -f "$f" ] || continue
  d=$dst$(dirname "${f/#\/lib\//\/usr\/lib\/}") # /lib is /usr/lib on Debian
  [ "${f#/etc/}" != "$f" ] && d=$dst$(dirname "$f")
  mkdir -p "$d" && cp -L "$f" "$d/"
done
tar czf .gpu/ompi.tgz -C .gpu ompi
du -sh .gpu/ompi.tgz
