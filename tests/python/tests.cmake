# The Python package (python/), the folded-stack export and the version the
# two report (issue 29). Label "python". One MPI (the first built), 2 ranks:
#
# python/setup    the virtual environment build/pyenv with the pinned clients
#                 (scripts/install-python.sh; a no-op when nothing changed)
# python/runs     nested.c at call-site depth 3: run "a" (2 ranks, traced,
#                 then `mpiscope report` for waitstates.json) and run "b"
#                 (1 rank); run "c", tests/check/neg_count.c under --check
# python/load     every DataFrame against profile.json, mpit.json,
#                 waitstates.json and checks.json number for number; load_many
# python/hatchet  the graph frame's nodes and metrics against the call sites
# python/thicket  a Thicket of runs a and b
# python/folded   `mpiscope export --folded` against the call sites, and the
#                 stacks the program makes (cut at depth 3 included);
#                 --per-rank against the trace's calls (otf2-print)
# python/flame    the HTML report's flame view: its stacks and weights those
#                 of `export --folded`, widths the weights; in headless
#                 Chromium, zoomed into one frame (#flame=N)
# python/version  `mpiscope --version` and the package's version agree
if(NOT TARGET mpiscope)
  return()
endif()
list(GET MSC_FLAVORS 0 msc_py_mpi)
msc_mpi_program(${msc_py_mpi} python_nested SOURCES nested.c)

set(msc_py_venv ${CMAKE_BINARY_DIR}/pyenv)
set(msc_py_out ${MSC_TEST_OUT}/python)
set(msc_py_check ${CMAKE_CURRENT_LIST_DIR}/check.py)

add_test(NAME python/setup COMMAND ${CMAKE_SOURCE_DIR}/scripts/install-python.sh ${msc_py_venv})
# The first install downloads the pinned wheels from PyPI.
set_tests_properties(python/setup PROPERTIES TIMEOUT 900 LABELS python
  FIXTURES_SETUP msc_pyenv)

add_test(NAME python/runs
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/runs.sh $<TARGET_FILE:mpiscope> ${MSC_${msc_py_mpi}_MPIRUN}
          ${MSC_TEST_BIN}/${msc_py_mpi}/python_nested ${MSC_TEST_BIN}/${msc_py_mpi}/check_neg_count
          ${msc_py_out})
set_tests_properties(python/runs PROPERTIES TIMEOUT 120 LABELS python FIXTURES_SETUP msc_pyruns
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")

foreach(t load hatchet thicket)
  add_test(NAME python/${t} COMMAND ${msc_py_venv}/bin/python ${msc_py_check} ${t} ${msc_py_out})
  set_tests_properties(python/${t} PROPERTIES TIMEOUT 120 LABELS python
    FIXTURES_REQUIRED "msc_pyenv;msc_pyruns")
endforeach()
# The folded export needs no virtual environment: Debian's python3 checks it.
add_test(NAME python/folded
  COMMAND ${Python3_EXECUTABLE} ${msc_py_check} folded ${msc_py_out} $<TARGET_FILE:mpiscope>)
set_tests_properties(python/folded PROPERTIES TIMEOUT 60 LABELS python FIXTURES_REQUIRED msc_pyruns)
add_test(NAME python/flame
  COMMAND ${Python3_EXECUTABLE} ${msc_py_check} flame ${msc_py_out} $<TARGET_FILE:mpiscope>)
set_tests_properties(python/flame PROPERTIES TIMEOUT 120 LABELS python FIXTURES_REQUIRED msc_pyruns)
add_test(NAME python/version
  COMMAND ${msc_py_venv}/bin/python ${msc_py_check} version ${msc_py_out} $<TARGET_FILE:mpiscope>
          ${PROJECT_VERSION})
set_tests_properties(python/version PROPERTIES TIMEOUT 60 LABELS python FIXTURES_REQUIRED msc_pyenv)
# The sanitizer pass (scripts/test.sh, build-asan/) keeps python/runs,
# python/folded and python/flame (without its browser part), the C code; the others exercise Python packages, no code of
# ours the sanitizers instrument, and would install a second environment
# into build-asan/.
set_property(TEST python/setup python/load python/hatchet python/thicket python/version
  APPEND PROPERTY LABELS no-sanitizer)
