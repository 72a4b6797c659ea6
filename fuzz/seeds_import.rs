//! Seed inputs of the importer fuzz targets, built in code rather than committed as motion
//! files (the repository holds no clip files). `benches/tests/fuzz_import_replay.rs` replays
//! them on every test run; `ANIMCOMP_WRITE_FUZZ_SEEDS=1 cargo test -p animcomp-bench --test
//! fuzz_import_replay write_seeds` writes them into `fuzz/corpus/<target>/` before a local
//! `cargo fuzz run` (those written files are ignored by git).

/// A seed: fuzz target, file name, text (LF line ends), and whether its lines end in CRLF
/// (one BVH seed does, as files exported on Windows).
pub struct Seed {
    pub target: &'static str,
    pub name: &'static str,
    text: &'static str,
    crlf: bool,
}

impl Seed {
    /// The seed's bytes as the fuzzer and the importer see them.
    pub fn bytes(&self) -> Vec<u8> {
        if self.crlf {
            self.text.replace('\n', "\r\n").into_bytes()
        } else {
            self.text.as_bytes().to_vec()
        }
    }
}

/// Every seed.
pub const SEEDS: &[Seed] = &[
    Seed {
        target: "import_bvh",
        name: "seed_golden.bvh",
        text: r#"HIERARCHY
ROOT Hips
{
	OFFSET 1 2 3
	CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation  
	JOINT Chest
	{
		OFFSET 0 10 0
		CHANNELS 3 Xrotation Yrotation Zrotation
		JOINT Arm
		{
			OFFSET 5 0 0
			CHANNELS 6 Xrotation Yposition Zrotation Xposition Zposition Yrotation
			End Site
			{
				OFFSET 4 0 0
			}
		}
	}
	JOINT Leg
	{
		OFFSET -3 -4 0
		CHANNELS 3 Zrotation Xrotation Yrotation
		End Site
		{
			OFFSET 0 -5 0
		}
	}
}
MOTION
Frames: 2
Frame Time: 0.0333333
10 20 30 90 0 90   90 0 90   0 7 0 8 9 30   0 0 0 
0 0 0 0 4.5e1 0	0 0 -90	180 1 0 2 3 0	0 90 90
"#,
        crlf: true,
    },
    Seed {
        target: "import_bvh",
        name: "seed_one_joint.bvh",
        text: r#"HIERARCHY
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
"#,
        crlf: false,
    },
    Seed {
        target: "import_acl",
        name: "seed_v1.acl.sjson",
        text: r#"version = 1

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
"#,
        crlf: false,
    },
    Seed {
        target: "import_acl",
        name: "seed_v5.acl.sjson",
        text: r#"version = 5
clip = { name = "hex", num_samples = 2, sample_rate = 30, is_binary_exact = true, additive_format = "none" }
settings = { level = "medium", error_threshold = 0.02 }
bones = [
  { name = "a", parent = "", vertex_distance = "4008000000000000" }
  { name = "b", parent = 0, vertex_distance = 1.0, bind_translation = [ "3FF0000000000000", "0", "C000000000000000" ] }
]
tracks = [
  { name = "b", translations = [ [ "3FF8000000000000", "0", "0" ], [ "0", "4024000000000000", "0" ] ] }
]
"#,
        crlf: false,
    },
];
