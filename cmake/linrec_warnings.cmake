# Warnings for linrec's own tests, benchmarks and examples (never applied to consumers).
function(linrec_target_warnings target)
  if(LINREC_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror>)
  else()
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
  endif()
endfunction()
