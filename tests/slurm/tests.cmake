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
      RUN_SERIAL TRUE
      LABELS "slurm;mpi;${flavor}"
      ENVIRONMENT "MSC_MPIRUN=${MSC_${flavor}_MPIRUN};MSC_CLI=${CMAKE_BINARY_DIR}/bin/mpiscope;MSC_PROG=${MSC_TEST_BIN}/${flavor}/multinode_spread;MSC_STALL=${MSC_TEST_BIN}/${flavor}/slurm_stall;MSC_OUT=${MSC_TEST_OUT}/${flavor}_slurm_${test}")
  endforeach()
endforeach()
