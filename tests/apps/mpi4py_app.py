"""mpi4py (Debian package python3-mpi4py, Open MPI) exercised the way Python
programs use it: pickled objects (lowercase methods) and buffers
(uppercase), point-to-point, nonblocking, collectives, a split
communicator, MPI-IO. Rank 0 prints the results, which depend only on the
number of ranks; the run ends through mpi4py's own MPI_Finalize at exit.
"""
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
out = []

# A token around the ring, 10 times, as a pickled object.
token = {"hops": 0}
for _ in range(10):
    if rank == 0:
        comm.send(token, dest=1 % size, tag=7)
        token = comm.recv(source=size - 1, tag=7)
    else:
        token = comm.recv(source=rank - 1, tag=7)
        token["hops"] += 1
        comm.send(token, dest=(rank + 1) % size, tag=7)
out.append(f"ring hops {token['hops']}")

# Buffers: nonblocking exchange with both neighbours, 20 rounds.
left, right = (rank - 1) % size, (rank + 1) % size
total = 0
for i in range(20):
    sbuf = bytearray([(rank + i) % 256]) * 1000
    rl, rr = bytearray(1000), bytearray(1000)
    reqs = [comm.Irecv([rl, MPI.BYTE], source=left, tag=i),
            comm.Irecv([rr, MPI.BYTE], source=right, tag=i),
            comm.Isend([sbuf, MPI.BYTE], dest=right, tag=i),
            comm.Isend([sbuf, MPI.BYTE], dest=left, tag=i)]
    MPI.Request.Waitall(reqs)
    total += sum(rl) + sum(rr)
out.append(f"halo checksum {comm.allreduce(total, op=MPI.SUM)}")

# Collectives on objects and on a split communicator.
out.append(f"bcast {comm.bcast({'answer': 42} if rank == 0 else None, root=0)}")
out.append(f"gather {comm.gather(rank * rank, root=0)}")
out.append(f"allgather {comm.allgather(rank)}")
out.append(f"scatter {comm.scatter([i * 10 for i in range(size)] if rank == 0 else None, root=0)}")
half = comm.Split(color=rank % 2, key=rank)
out.append(f"split sum {comm.gather(half.allreduce(rank), root=0)}")
half.Free()
comm.Barrier()

# MPI-IO: each rank writes its block collectively, rank 0 reads the file back.
fh = MPI.File.Open(comm, "mpi4py.dat", MPI.MODE_CREATE | MPI.MODE_RDWR)
fh.Write_at_all(rank * 16, bytearray([65 + rank]) * 16)
fh.Sync()
comm.Barrier()
if rank == 0:
    data = bytearray(16 * size)
    fh.Read_at(0, data)
    out.append(f"file {data.decode()}")
fh.Close()

if rank == 0:
    print("\n".join(out))
