# HPC Challenge (Debian package hpcc, C, Open MPI only) on 2 ranks with a
# small problem (HPL N=200 on a 1x2 grid; the other kernels size themselves
# from it): HPL, DGEMM, STREAM, PTRANS, RandomAccess (MPI and LCG), FFT and
# the b_eff latency and bandwidth rings.
# Result lines (hpccoutf.txt): every validation line (errors found, residual
# checks passed, HPL's scaled residual, FFT's error) and the summary's sizes,
# error counts and deterministic residuals; never a time or a rate.
app_missing() {
  [ "$1" = openmpi ] || { echo "Debian packages HPCC for Open MPI only"; return; }
  command -v hpcc > /dev/null || echo "hpcc not installed (Debian package hpcc)"
}
app_prepare() {
  cat > hpccinf.txt <<'IN'
HPLinpack benchmark input file (mpiscope application test)
mpiscope
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
200          Ns
1            # of NBs
32           NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
1            Ps
2            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
IN
}
app_command() { np=2; cmd=(hpcc); }
app_output() { cat hpccoutf.txt; }
app_filter() {
  awk '
    /errors in .* locations|Node\(s\) with error|tests completed and|Scaled residual|Solution Validates|PASSED|FAILED/ {
      # PTRANS: one WALL line per test; the CPU line only when CPU time was measurable
      if ($1 == "WALL") { print $1, $2, $3, $4, $5, $6, $7, $9, $11; next }
      if ($1 == "CPU") next
      # StarDGEMM draws its matrices from a time-seeded generator: only the
      # fact that the residual was computed (its verdict is "Node(s) with error")
      if ($1 == "Scaled") { print "Scaled residual computed"; next }
      if ($0 ~ /^\|\|Ax-b\|\|/) { print; next }
      print; next }
    /^(Success|CommWorldProcs|HPL_N|HPL_NB|HPL_nprow|HPL_npcol|HPL_RnormI|HPL_Anorm1|HPL_AnormI|HPL_Xnorm1|HPL_XnormI|HPL_BnormI|DGEMM_N|PTRANS_residual|PTRANS_n|STREAM_VectorSize|FFT_N|MPIFFT_N|MPIFFT_maxErr|MPIFFT_Procs|RandomAccess_N|RandomAccess_LCG_N)=/ { print }
    # ExeUpdates is left out: MPIRandomAccess is time-bound (it stops
    # updating after a time budget derived from the run), so the count of
    # updates done depends on the load (65,270 against 117,798 on one
    # busy machine).
    /^MPIRandomAccess(_LCG)?_(N|Errors|ErrorsFraction)=/ { print }'
}
