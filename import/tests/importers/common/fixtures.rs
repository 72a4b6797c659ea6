//! Small clip files written in code: the importer tests' golden inputs, which are also the
//! importer fuzz targets' seeds (`benches/tests/fuzz_import_replay.rs` replays them and writes
//! them into `fuzz/corpus/` for local fuzzing). The repository holds no motion files.

/// A BVH file of four joints and two frames. Line numbers matter for `bvh_golden.rs`'s error
/// tests; CRLF, tabs and trailing blanks on purpose.
pub const BVH_GOLDEN: &str = "HIERARCHY\r\n\
ROOT Hips\r\n\
{\r\n\
\tOFFSET 1 2 3\r\n\
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation  \r\n\
\tJOINT Chest\r\n\
\t{\r\n\
\t\tOFFSET 0 10 0\r\n\
\t\tCHANNELS 3 Xrotation Yrotation Zrotation\r\n\
\t\tJOINT Arm\r\n\
\t\t{\r\n\
\t\t\tOFFSET 5 0 0\r\n\
\t\t\tCHANNELS 6 Xrotation Yposition Zrotation Xposition Zposition Yrotation\r\n\
\t\t\tEnd Site\r\n\
\t\t\t{\r\n\
\t\t\t\tOFFSET 4 0 0\r\n\
\t\t\t}\r\n\
\t\t}\r\n\
\t}\r\n\
\tJOINT Leg\r\n\
\t{\r\n\
\t\tOFFSET -3 -4 0\r\n\
\t\tCHANNELS 3 Zrotation Xrotation Yrotation\r\n\
\t\tEnd Site\r\n\
\t\t{\r\n\
\t\t\tOFFSET 0 -5 0\r\n\
\t\t}\r\n\
\t}\r\n\
}\r\n\
MOTION\r\n\
Frames: 2\r\n\
Frame Time: 0.0333333\r\n\
10 20 30 90 0 90   90 0 90   0 7 0 8 9 30   0 0 0 \r\n\
0 0 0 0 4.5e1 0\t0 0 -90\t180 1 0 2 3 0\t0 90 90\r\n";

/// The smallest BVH file: one joint, one frame.
pub const BVH_ONE_JOINT: &str = "HIERARCHY
ROOT a
{
OFFSET 0 0 0
CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
End Site
{
OFFSET 0 1 0
}
}
MOTION
Frames: 1
Frame Time: 0.0333
1 2 3 10 20 30
";

/// ACL clip format version 1: multi-root, bind pose, a huge translation value.
pub const ACL_V1: &str = r#"version = 1

// A two-bone clip, three samples.
clip =
{
	name = "tiny"
	num_samples = 3
	sample_rate = 24
	error_threshold = 0.05
}

bones =
[
	{
		name = "root"
		parent = ""
		vertex_distance = 2.5
		bind_rotation = [ 0.0, 0.0, 0.0, 1.0 ]
	}
	{
		name = "child", parent = "root", vertex_distance = 4.0
		bind_rotation = [ 0.0, 0.7071067811865476, 0.0, 0.7071067811865476 ]
		bind_translation = [ 1.0, 2.0, 3.0 ]
		bind_scale = [ 2.0, 2.0, 2.0 ]
	}
	{
		name = "second_root"
		parent = ""
		vertex_distance = 3.0
		bind_translation = [ 0.0, 0.0, -7.5 ]
	}
]

tracks =
[
	{
		name = "child"
		rotations = [ [ 0.0, 0.0, 0.0, 1.0 ] [ 1.0, 0.0, 0.0, 0.0 ], [ 0.0, 0.0, 1.0, 0.0 ] ]
	}
	{
		name = "root"
		rotations =
		[
			[ 0.0, 0.0, 0.0, 1.0 ]
			[ 0.0, 0.0, 0.0, 1.0 ]
			[ 0.0, 0.0, 0.0, 1.0 ]
		]
		translations =
		[
			[ 10.0, 0.0, 0.0 ]
			[ 11.5, -1.0e1, 0.0 ]
			[ 1.0e25, 0.0, 0.0 ]
		]
		scales = [ [1,1,1] [1,1,1] [0.5,1,1] ]
	}
]
"#;

/// Version 5 layout: threshold in `settings`, binary-exact hexadecimal values, parent by index.
pub const ACL_V5: &str = r#"version = 5
clip = { name = "hex", num_samples = 2, sample_rate = 30, is_binary_exact = true, additive_format = "none" }
settings = { level = "medium", error_threshold = 0.02 }
bones = [
  { name = "a", parent = "", vertex_distance = "4008000000000000" }
  { name = "b", parent = 0, vertex_distance = 1.0, bind_translation = [ "3FF0000000000000", "0", "C000000000000000" ] }
]
tracks = [
  { name = "b", translations = [ [ "3FF8000000000000", "0", "0" ], [ "0", "4024000000000000", "0" ] ] }
]
"#;
