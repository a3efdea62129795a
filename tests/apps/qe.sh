# Quantum ESPRESSO (Debian package quantum-espresso, Fortran through mpif.h,
# Open MPI only; ScaLAPACK's BLACS inside makes C calls too): a tiny SCF
# made by the test. ld1.x (the package's atomic code, run before and without
# mpiscope) generates a norm-conserving hydrogen pseudopotential, then pw.x
# computes H2 in an 8-bohr cubic box at the Gamma point on 2 ranks (plane
# waves distributed over the ranks: parallel FFTs with MPI_Alltoall).
# Result lines: the SCF's energies per iteration, the final energy and its
# terms, the eigenvalues, forces, the parallel layout; never a time.
app_missing() {
  [ "$1" = openmpi ] || { echo "Debian packages Quantum ESPRESSO for Open MPI only"; return; }
  command -v pw.x > /dev/null && command -v ld1.x > /dev/null ||
    echo "pw.x, ld1.x not installed (Debian package quantum-espresso)"
}
app_prepare() {
  cat > ld1.in <<'IN'
&input
   title='H', zed=1.0, config='1s1', iswitch=3, dft='PZ'
/
&inputp
   pseudotype=1, file_pseudopw='H.pz-tm.UPF', author='mpiscope test', lloc=0, tm=.true.
/
1
1S  1  0  1.00  0.00  1.00  1.00  0.0
IN
  ld1.x < ld1.in > ld1.out 2>&1 && [ -s H.pz-tm.UPF ] || { tail ld1.out; return 1; }
  cat > h2.in <<'IN'
&control
   calculation='scf', prefix='h2', pseudo_dir='./', outdir='./tmp', tprnfor=.true.
/
&system
   ibrav=1, celldm(1)=8.0, nat=2, ntyp=1, ecutwfc=16.0
/
&electrons
   conv_thr=1.0d-8
/
ATOMIC_SPECIES
H 1.008 H.pz-tm.UPF
ATOMIC_POSITIONS bohr
H 0.0 0.0 0.0
H 1.4 0.0 0.0
K_POINTS gamma
IN
}
app_command() { np=2; cmd=(pw.x -in h2.in); }
app_output() { cat "$dir/stdout"; }
app_filter() {
  grep -E 'total energy|estimated scf accuracy|contribution =|convergence has been|force =|Total force|highest occupied|number of electrons|Kohn-Sham states|running on +[0-9]+ processors|R & G space division|proc/nbgrp|^ +-?[0-9]+\.[0-9]+( +-?[0-9]+\.[0-9]+)* *$|Sum +[0-9]+ +[0-9]+'
}
