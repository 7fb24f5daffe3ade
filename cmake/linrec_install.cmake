# install() rules and the package files that make find_package(linrec CONFIG) work.
include(CMakePackageConfigHelpers)

install(TARGETS linrec EXPORT linrecTargets)
install(DIRECTORY include/linrec DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(LINREC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/linrec)
install(EXPORT linrecTargets NAMESPACE linrec:: DESTINATION ${LINREC_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/linrecConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/linrecConfig.cmake
  INSTALL_DESTINATION ${LINREC_CMAKE_DIR})
# Header-only, so any architecture may use the package.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/linrecConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/linrecConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/linrecConfigVersion.cmake
  DESTINATION ${LINREC_CMAKE_DIR})
