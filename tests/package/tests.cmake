# The installed CMake package (find_package(mpiscope), mpiscope::<mpi>)
# builds and links a consumer project with each MPI; consumer.sh says how.
foreach(f IN LISTS MSC_FLAVORS)
  add_test(NAME ${f}/package/cmake
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/consumer.sh ${f} ${MSC_${f}_MPICC} ${MSC_${f}_MPIRUN}
            ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${MSC_TEST_OUT}/${f}_package_cmake
            ${PROJECT_VERSION})
  set_tests_properties(${f}/package/cmake PROPERTIES TIMEOUT 120
                       LABELS "mpi;${f};package")
endforeach()
