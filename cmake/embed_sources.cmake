# Embeds text files (OpenCL kernels) into the library at build time, so that a
# kernel lives in a real .cl file and the binary needs no file at run time.
# tessera::runtime::embedded_source("blas/gemm.cl") returns the text of src/blas/gemm.cl.
set(TESSERA_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_sources_script.cmake)

function(tessera_embed_sources output root)
  set(files ${ARGN})
  list(SORT files)
  add_custom_command(OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DROOT=${root} "-DFILES=${files}"
            -P ${TESSERA_EMBED_SCRIPT}
    DEPENDS ${files} ${TESSERA_EMBED_SCRIPT}
    COMMENT "Embedding ${root}/**/*.cl"
    VERBATIM)
endfunction()
