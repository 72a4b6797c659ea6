//! The C ABI (`include/animcomp.h`). Only conversion and checking live here. (Being written.)
