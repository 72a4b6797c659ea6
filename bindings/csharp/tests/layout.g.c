/* Generated from include/animcomp.h by `cargo run -p animcomp-csharp-gen`. Do not edit by hand.
 * Prints the C size of every struct and the offset of every field, for the C# layout test. */
#include <stddef.h>
#include <stdio.h>

#include "animcomp.h"

int main(void) {
    printf("size AnimcompCurveDesc %zu\n", sizeof(AnimcompCurveDesc));
    printf("offset AnimcompCurveDesc.id %zu\n", offsetof(AnimcompCurveDesc, id));
    printf("offset AnimcompCurveDesc.precision %zu\n", offsetof(AnimcompCurveDesc, precision));
    printf("offset AnimcompCurveDesc.default_value %zu\n", offsetof(AnimcompCurveDesc, default_value));
    printf("offset AnimcompCurveDesc.has_default %zu\n", offsetof(AnimcompCurveDesc, has_default));
    printf("offset AnimcompCurveDesc.magnitude %zu\n", offsetof(AnimcompCurveDesc, magnitude));
    printf("offset AnimcompCurveDesc.reserved %zu\n", offsetof(AnimcompCurveDesc, reserved));
    printf("size AnimcompRawClip %zu\n", sizeof(AnimcompRawClip));
    printf("offset AnimcompRawClip.num_joints %zu\n", offsetof(AnimcompRawClip, num_joints));
    printf("offset AnimcompRawClip.num_samples %zu\n", offsetof(AnimcompRawClip, num_samples));
    printf("offset AnimcompRawClip.sample_rate %zu\n", offsetof(AnimcompRawClip, sample_rate));
    printf("offset AnimcompRawClip.layout %zu\n", offsetof(AnimcompRawClip, layout));
    printf("offset AnimcompRawClip.parents %zu\n", offsetof(AnimcompRawClip, parents));
    printf("offset AnimcompRawClip.precisions %zu\n", offsetof(AnimcompRawClip, precisions));
    printf("offset AnimcompRawClip.shell_distances %zu\n", offsetof(AnimcompRawClip, shell_distances));
    printf("offset AnimcompRawClip.bind_pose %zu\n", offsetof(AnimcompRawClip, bind_pose));
    printf("offset AnimcompRawClip.rotations %zu\n", offsetof(AnimcompRawClip, rotations));
    printf("offset AnimcompRawClip.translations %zu\n", offsetof(AnimcompRawClip, translations));
    printf("offset AnimcompRawClip.scales %zu\n", offsetof(AnimcompRawClip, scales));
    printf("offset AnimcompRawClip.rotation_stride %zu\n", offsetof(AnimcompRawClip, rotation_stride));
    printf("offset AnimcompRawClip.translation_stride %zu\n", offsetof(AnimcompRawClip, translation_stride));
    printf("offset AnimcompRawClip.scale_stride %zu\n", offsetof(AnimcompRawClip, scale_stride));
    printf("offset AnimcompRawClip.reserved0 %zu\n", offsetof(AnimcompRawClip, reserved0));
    printf("offset AnimcompRawClip.num_curves %zu\n", offsetof(AnimcompRawClip, num_curves));
    printf("offset AnimcompRawClip.curve_stride %zu\n", offsetof(AnimcompRawClip, curve_stride));
    printf("offset AnimcompRawClip.curve_values %zu\n", offsetof(AnimcompRawClip, curve_values));
    printf("offset AnimcompRawClip.curves %zu\n", offsetof(AnimcompRawClip, curves));
    printf("offset AnimcompRawClip.reserved %zu\n", offsetof(AnimcompRawClip, reserved));
    printf("size AnimcompCompressSettings %zu\n", sizeof(AnimcompCompressSettings));
    printf("offset AnimcompCompressSettings.codec %zu\n", offsetof(AnimcompCompressSettings, codec));
    printf("offset AnimcompCompressSettings.level %zu\n", offsetof(AnimcompCompressSettings, level));
    printf("offset AnimcompCompressSettings.rotation_format %zu\n", offsetof(AnimcompCompressSettings, rotation_format));
    printf("offset AnimcompCompressSettings.translation_format %zu\n", offsetof(AnimcompCompressSettings, translation_format));
    printf("offset AnimcompCompressSettings.scale_format %zu\n", offsetof(AnimcompCompressSettings, scale_format));
    printf("offset AnimcompCompressSettings.default_mode %zu\n", offsetof(AnimcompCompressSettings, default_mode));
    printf("offset AnimcompCompressSettings.optimize_loops %zu\n", offsetof(AnimcompCompressSettings, optimize_loops));
    printf("offset AnimcompCompressSettings.precision %zu\n", offsetof(AnimcompCompressSettings, precision));
    printf("offset AnimcompCompressSettings.shell_distance %zu\n", offsetof(AnimcompCompressSettings, shell_distance));
    printf("offset AnimcompCompressSettings.curve_precision %zu\n", offsetof(AnimcompCompressSettings, curve_precision));
    printf("offset AnimcompCompressSettings.morph_position_precision %zu\n", offsetof(AnimcompCompressSettings, morph_position_precision));
    printf("offset AnimcompCompressSettings.vbr_layout %zu\n", offsetof(AnimcompCompressSettings, vbr_layout));
    printf("offset AnimcompCompressSettings.reserved %zu\n", offsetof(AnimcompCompressSettings, reserved));
    printf("size AnimcompDecompressor %zu\n", sizeof(AnimcompDecompressor));
    printf("offset AnimcompDecompressor.opaque %zu\n", offsetof(AnimcompDecompressor, opaque));
    printf("size AnimcompDecompressOptions %zu\n", sizeof(AnimcompDecompressOptions));
    printf("offset AnimcompDecompressOptions.verify_checksum %zu\n", offsetof(AnimcompDecompressOptions, verify_checksum));
    printf("offset AnimcompDecompressOptions.reserved0 %zu\n", offsetof(AnimcompDecompressOptions, reserved0));
    printf("offset AnimcompDecompressOptions.bind_pose %zu\n", offsetof(AnimcompDecompressOptions, bind_pose));
    printf("offset AnimcompDecompressOptions.bind_pose_len %zu\n", offsetof(AnimcompDecompressOptions, bind_pose_len));
    printf("offset AnimcompDecompressOptions.reserved %zu\n", offsetof(AnimcompDecompressOptions, reserved));
    printf("size AnimcompBlob %zu\n", sizeof(AnimcompBlob));
    printf("offset AnimcompBlob.opaque %zu\n", offsetof(AnimcompBlob, opaque));
    printf("size AnimcompBlobInfo %zu\n", sizeof(AnimcompBlobInfo));
    printf("offset AnimcompBlobInfo.format_version %zu\n", offsetof(AnimcompBlobInfo, format_version));
    printf("offset AnimcompBlobInfo.codec %zu\n", offsetof(AnimcompBlobInfo, codec));
    printf("offset AnimcompBlobInfo.flags %zu\n", offsetof(AnimcompBlobInfo, flags));
    printf("offset AnimcompBlobInfo.num_joints %zu\n", offsetof(AnimcompBlobInfo, num_joints));
    printf("offset AnimcompBlobInfo.num_samples %zu\n", offsetof(AnimcompBlobInfo, num_samples));
    printf("offset AnimcompBlobInfo.sample_rate %zu\n", offsetof(AnimcompBlobInfo, sample_rate));
    printf("offset AnimcompBlobInfo.duration %zu\n", offsetof(AnimcompBlobInfo, duration));
    printf("offset AnimcompBlobInfo.num_curves %zu\n", offsetof(AnimcompBlobInfo, num_curves));
    printf("offset AnimcompBlobInfo.blob_size %zu\n", offsetof(AnimcompBlobInfo, blob_size));
    printf("offset AnimcompBlobInfo.raw_size %zu\n", offsetof(AnimcompBlobInfo, raw_size));
    printf("offset AnimcompBlobInfo.additive_format %zu\n", offsetof(AnimcompBlobInfo, additive_format));
    printf("offset AnimcompBlobInfo.reserved1 %zu\n", offsetof(AnimcompBlobInfo, reserved1));
    printf("offset AnimcompBlobInfo.curves_size %zu\n", offsetof(AnimcompBlobInfo, curves_size));
    printf("size AnimcompPoseLayout %zu\n", sizeof(AnimcompPoseLayout));
    printf("offset AnimcompPoseLayout.element %zu\n", offsetof(AnimcompPoseLayout, element));
    printf("offset AnimcompPoseLayout.kind %zu\n", offsetof(AnimcompPoseLayout, kind));
    printf("offset AnimcompPoseLayout.rotation_offset %zu\n", offsetof(AnimcompPoseLayout, rotation_offset));
    printf("offset AnimcompPoseLayout.translation_offset %zu\n", offsetof(AnimcompPoseLayout, translation_offset));
    printf("offset AnimcompPoseLayout.scale_offset %zu\n", offsetof(AnimcompPoseLayout, scale_offset));
    printf("offset AnimcompPoseLayout.record_stride %zu\n", offsetof(AnimcompPoseLayout, record_stride));
    printf("offset AnimcompPoseLayout.rotation_stride %zu\n", offsetof(AnimcompPoseLayout, rotation_stride));
    printf("offset AnimcompPoseLayout.translation_stride %zu\n", offsetof(AnimcompPoseLayout, translation_stride));
    printf("offset AnimcompPoseLayout.scale_stride %zu\n", offsetof(AnimcompPoseLayout, scale_stride));
    printf("offset AnimcompPoseLayout.reserved %zu\n", offsetof(AnimcompPoseLayout, reserved));
    printf("size AnimcompCheckedPoseLayout %zu\n", sizeof(AnimcompCheckedPoseLayout));
    printf("offset AnimcompCheckedPoseLayout.opaque %zu\n", offsetof(AnimcompCheckedPoseLayout, opaque));
    printf("size AnimcompPoseBuffers %zu\n", sizeof(AnimcompPoseBuffers));
    printf("offset AnimcompPoseBuffers.data0 %zu\n", offsetof(AnimcompPoseBuffers, data0));
    printf("offset AnimcompPoseBuffers.size0 %zu\n", offsetof(AnimcompPoseBuffers, size0));
    printf("offset AnimcompPoseBuffers.data1 %zu\n", offsetof(AnimcompPoseBuffers, data1));
    printf("offset AnimcompPoseBuffers.size1 %zu\n", offsetof(AnimcompPoseBuffers, size1));
    printf("offset AnimcompPoseBuffers.data2 %zu\n", offsetof(AnimcompPoseBuffers, data2));
    printf("offset AnimcompPoseBuffers.size2 %zu\n", offsetof(AnimcompPoseBuffers, size2));
    return 0;
}
