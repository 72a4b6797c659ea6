//! The hand-written ASCII FBX fixture of the FBX tests, shared with the CLI tests
//! (`cli/tests/fbx_export.rs` includes this file by path).

/// One second in FBX ticks.
pub const SEC: i64 = 46_186_158_000;

/// A three-joint LimbNode chain hip → knee → foot, 30 fps, cm. The knee has a 30° pre-rotation
/// about Z and a keyed Z rotation 0° → 90° (linear) from key time 0 to `key_end` ticks; the stack
/// runs from `start` to `stop` ticks. `anim` false drops the stack; `limb` false makes the nodes
/// plain Nulls without bone attributes.
pub fn fixture(start: i64, stop: i64, key_end: i64, anim: bool, limb: bool) -> String {
    let kind = if limb { "LimbNode" } else { "Null" };
    let attrs = if limb {
        r#"	NodeAttribute: 10, "NodeAttribute::", "LimbNode" {
		TypeFlags: "Skeleton"
	}
	NodeAttribute: 11, "NodeAttribute::", "LimbNode" {
		TypeFlags: "Skeleton"
	}
	NodeAttribute: 12, "NodeAttribute::", "LimbNode" {
		TypeFlags: "Skeleton"
	}
"#
    } else {
        ""
    };
    let stack = if anim {
        format!(
            r#"	AnimationStack: 100, "AnimStack::walk", "" {{
		Properties70:  {{
			P: "LocalStart", "KTime", "Time", "",{start}
			P: "LocalStop", "KTime", "Time", "",{stop}
		}}
	}}
	AnimationLayer: 101, "AnimLayer::BaseLayer", "" {{
	}}
	AnimationCurveNode: 102, "AnimCurveNode::R", "" {{
		Properties70:  {{
			P: "d|X", "Number", "", "A",0
			P: "d|Y", "Number", "", "A",0
			P: "d|Z", "Number", "", "A",0
		}}
	}}
	AnimationCurve: 103, "AnimCurve::", "" {{
		Default: 0
		KeyVer: 4008
		KeyTime: *2 {{
			a: 0,{key_end}
		}}
		KeyValueFloat: *2 {{
			a: 0,90
		}}
		KeyAttrFlags: *1 {{
			a: 260
		}}
		KeyAttrDataFloat: *4 {{
			a: 0,0,0,0
		}}
		KeyAttrRefCount: *1 {{
			a: 2
		}}
	}}
"#
        )
    } else {
        String::new()
    };
    let conns = if anim {
        r#"	C: "OO",101,100
	C: "OO",102,101
	C: "OP",102,2, "Lcl Rotation"
	C: "OP",103,102, "d|Z"
"#
    } else {
        ""
    };
    let attr_conns = if limb {
        "\tC: \"OO\",10,1\n\tC: \"OO\",11,2\n\tC: \"OO\",12,3\n"
    } else {
        ""
    };
    format!(
        r#"; FBX 7.4.0 project file
FBXHeaderExtension:  {{
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}}
GlobalSettings:  {{
	Version: 1000
	Properties70:  {{
		P: "UpAxis", "int", "Integer", "",1
		P: "UpAxisSign", "int", "Integer", "",1
		P: "FrontAxis", "int", "Integer", "",2
		P: "FrontAxisSign", "int", "Integer", "",1
		P: "CoordAxis", "int", "Integer", "",0
		P: "CoordAxisSign", "int", "Integer", "",1
		P: "UnitScaleFactor", "double", "Number", "",1
		P: "TimeMode", "enum", "", "",6
	}}
}}
Objects:  {{
{attrs}	Model: 1, "Model::hip", "{kind}" {{
		Version: 232
		Properties70:  {{
			P: "Lcl Translation", "Lcl Translation", "", "A",0,10,0
		}}
	}}
	Model: 2, "Model::knee", "{kind}" {{
		Version: 232
		Properties70:  {{
			P: "RotationActive", "bool", "", "",1
			P: "PreRotation", "Vector3D", "Vector", "",0,0,30
			P: "Lcl Translation", "Lcl Translation", "", "A",0,-5,0
		}}
	}}
	Model: 3, "Model::foot", "{kind}" {{
		Version: 232
		Properties70:  {{
			P: "Lcl Translation", "Lcl Translation", "", "A",0,-5,0
		}}
	}}
{stack}}}
Connections:  {{
	C: "OO",1,0
	C: "OO",2,1
	C: "OO",3,2
{attr_conns}{conns}}}
"#
    )
}
