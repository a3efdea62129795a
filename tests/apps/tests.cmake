# Packaged MPI applications (docs/apps.md): each one on each MPI that Debian
# builds it for, once without mpiscope (plain: the reference) and once per
# mode (profile, trace, check), by tests/apps/run-app.sh. Label apps: they
# take minutes, not seconds (scripts/test.sh leaves them out of the
# sanitizer passes).
set(MSC_APPS ${CMAKE_CURRENT_LIST_DIR})
# <app>:<the MPIs Debian builds it for>
set(msc_apps lammps:openmpi hpcc:openmpi qe:openmpi mpi4py:openmpi netpipe:openmpi,mpich hdf5:openmpi,mpich)
foreach(flavor IN LISTS MSC_FLAVORS)
  set(counter ${CMAKE_BINARY_DIR}/tests/${flavor}/apps/libcallcounter.so)
  add_custom_command(OUTPUT ${counter}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/tests/${flavor}/apps
    COMMAND ${MSC_APPS}/counter/make-counter.sh ${MSC_${flavor}_MPIFC} ${CMAKE_C_COMPILER} ${counter}
    DEPENDS ${MSC_APPS}/counter/make-counter.sh ${MSC_APPS}/counter/gen_counter.py
            ${MSC_APPS}/counter/counter.c
    COMMENT "Building the call counter for ${flavor}"
    VERBATIM)
  add_custom_target(callcounter_${flavor} ALL DEPENDS ${counter})
  # Our parallel-HDF5 program, against that MPI's HDF5 when it is installed.
  set(h5inc /usr/include/hdf5/${flavor})
  set(h5lib /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/hdf5/${flavor})
  if(EXISTS ${h5inc}/hdf5.h AND MSC_${flavor}_MPICC)
    set(h5prog ${CMAKE_BINARY_DIR}/tests/${flavor}/apps/hdf5_io)
    add_custom_command(OUTPUT ${h5prog}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/tests/${flavor}/apps
      COMMAND ${MSC_${flavor}_MPICC} -std=gnu17 -g -O1 -I${h5inc} -o ${h5prog}
              ${MSC_APPS}/hdf5_io.c -L${h5lib} -Wl,-rpath,${h5lib} -lhdf5
      DEPENDS ${MSC_APPS}/hdf5_io.c
      COMMENT "Building test program ${flavor}/apps/hdf5_io"
      VERBATIM)
    add_custom_target(testprog_${flavor}_apps_hdf5_io ALL DEPENDS ${h5prog})
  else()
    message(STATUS "mpiscope: ${flavor}: no parallel HDF5 (libhdf5-${flavor}-dev); apps/hdf5 skips")
  endif()
  foreach(entry IN LISTS msc_apps)
    string(REPLACE ":" ";" entry "${entry}")
    list(GET entry 0 app)
    list(GET entry 1 app_flavors)
    string(REPLACE "," ";" app_flavors "${app_flavors}")
    if(NOT flavor IN_LIST app_flavors)
      continue()
    endif()
    foreach(mode plain profile trace check)
      set(t ${flavor}/apps/${app}/${mode})
      add_test(NAME ${t} COMMAND ${MSC_APPS}/run-app.sh ${flavor} ${app} ${mode})
      # HPCC's trace holds about a million events (its RandomAccess polls
      # MPI_Testany and MPI_Test, more the busier the machine), all read
      # back in Python: about 60 s on an idle machine, 260 s in a loaded
      # full pass.
      set(timeout 300)
      if(app STREQUAL hpcc)
        set(timeout 900)
      endif()
      set_tests_properties(${t} PROPERTIES
        TIMEOUT ${timeout}
        SKIP_RETURN_CODE 77
        LABELS "apps;mpi;${flavor}"
        ENVIRONMENT "MSC_MPIRUN=${MSC_${flavor}_MPIRUN};MSC_LIB=${CMAKE_BINARY_DIR}/${MSC_LIBDIR_REL}/${flavor}/libmpiscope.so;MSC_COUNTER=${counter};MSC_APPS_OUT=${CMAKE_BINARY_DIR}/test-output/apps;MSC_APPS_BIN=${CMAKE_BINARY_DIR}/tests;MSC_COVERAGE=${CMAKE_BINARY_DIR}/gen/${flavor}/coverage.txt;MSC_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
      if(mode STREQUAL plain)
        set_tests_properties(${t} PROPERTIES FIXTURES_SETUP apps_${flavor}_${app})
      else()
        set_tests_properties(${t} PROPERTIES FIXTURES_REQUIRED apps_${flavor}_${app})
      endif()
    endforeach()
  endforeach()
endforeach()
