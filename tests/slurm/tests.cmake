# Under Slurm: a real cluster (Debian's Slurm 22.05: slurmctld and three
# slurmds on the network-namespace nodes of tests/multinode) started and
# stopped by each test (tests/slurm/cluster.sh, run.sh; docs/slurm.md).
# Skipped (77) when not root, without Slurm and munge, or without
# namespaces. Label slurm; each test makes and removes its own cluster.
# The program is tests/multinode's spread.c (built there, multinode_spread).
foreach(flavor IN LISTS MSC_FLAVORS)
  msc_mpi_program(${flavor} slurm_stall SOURCES stall.c)
  foreach(test srun salloc sbatch scancel)
    set(t ${flavor}/slurm/${test})
    add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh ${flavor} ${test})
    set_tests_properties(${t} PROPERTIES
      TIMEOUT 300
      SKIP_RETURN_CODE 77
      LABELS "slurm;mpi;${flavor}"
      ENVIRONMENT "MSC_MPIRUN=${MSC_${flavor}_MPIRUN};MSC_CLI=${CMAKE_BINARY_DIR}/bin/mpiscope;MSC_PROG=${MSC_TEST_BIN}/${flavor}/multinode_spread;MSC_STALL=${MSC_TEST_BIN}/${flavor}/slurm_stall;MSC_OUT=${MSC_TEST_OUT}/${flavor}_slurm_${test}")
  endforeach()
endforeach()

# The report's slurm line for node lists the cluster above never makes
# (padded ranges, several items, FQDN hosts, hosts outside the job, lists
# it cannot read); no MPI, no cluster.
add_test(NAME slurm/report-nodes
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/report_nodes.py ${CMAKE_BINARY_DIR}/bin/mpiscope
          ${MSC_TEST_OUT}/slurm_report-nodes)
set_tests_properties(slurm/report-nodes PROPERTIES TIMEOUT 60 LABELS "slurm;report")
