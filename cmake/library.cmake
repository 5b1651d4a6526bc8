# libclparity as an installable library (issue 14): the runtime's static archive (libclparity.a,
# which the command and the tests link) and a shared libclparity.so.0 made of the same objects,
# exporting only the public API (runtime/include/clparity, between CP_API_BEGIN and
# CP_API_END: everything else is built with -fvisibility=hidden). The kernels are embedded
# (kernels.c), so an installed library needs no source tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(clparity_rt PROPERTIES OUTPUT_NAME clparity POSITION_INDEPENDENT_CODE ON
                                             C_VISIBILITY_PRESET hidden EXPORT_NAME clparity_static)

# Every object comes from the archive; a target needs a source of its own all the same.
file(WRITE ${CMAKE_BINARY_DIR}/clparity_shared.c
     "/* libclparity.so: the objects of libclparity.a, whole (cmake/library.cmake). */\n"
     "typedef int cp_shared_library_has_no_code_of_its_own;\n")
add_library(clparity_shared SHARED ${CMAKE_BINARY_DIR}/clparity_shared.c)
set_target_properties(clparity_shared PROPERTIES OUTPUT_NAME clparity VERSION ${PROJECT_VERSION}
                                                 SOVERSION ${PROJECT_VERSION_MAJOR}
                                                 EXPORT_NAME clparity LINKER_LANGUAGE C)
target_link_libraries(clparity_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,clparity_rt>"
                      PUBLIC OpenCL::OpenCL)
# A program that links it sees the public headers (they include <CL/cl.h>).
target_include_directories(clparity_shared PUBLIC
                           $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/runtime/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# Nothing undefined may be left for the program to find (except in the sanitizer builds,
# where clang leaves the sanitizers' runtime to the executable).
if(NOT CLPARITY_SANITIZE AND NOT CLPARITY_FUZZ)
  target_link_options(clparity_shared PRIVATE -Wl,--no-undefined)
endif()
add_library(clparity::clparity ALIAS clparity_shared)

install(TARGETS clparity_shared clparity_rt EXPORT clparityTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS clparity RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY runtime/include/clparity DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT clparityTargets NAMESPACE clparity:: FILE clparityTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/clparity)
configure_package_config_file(cmake/clparityConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/clparityConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/clparity)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/clparityConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/clparityConfig.cmake
              ${CMAKE_BINARY_DIR}/clparityConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/clparity)
# clparity.pc finds its prefix from its own place (${pcfiledir}), so that an installation
# moved elsewhere, or made with `cmake --install --prefix DIR`, still works.
file(RELATIVE_PATH CLPARITY_PC_TO_PREFIX
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix/)
configure_file(cmake/clparity.pc.in ${CMAKE_BINARY_DIR}/clparity.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/clparity.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The Python module, beside the library it loads (PREFIX/lib/python3 -> PREFIX/lib).
install(FILES tools/python/clparity.py DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3)

# The C example of docs/LIBRARY.md, built here against the shared library (so that it sees only
# what the library exports).
add_executable(compare_example runtime/examples/compare_example.c)
target_link_libraries(compare_example PRIVATE clparity_shared)
