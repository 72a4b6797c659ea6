//! `bench` and `compress` on a Live Link Face CSV generated here: curve figures in the table and
//! in the `--json` totals, error within the precision, the hole filling reported.

use assert_cmd::Command;
use serde_json::Value;

fn take() -> String {
    let mut s = String::from("Timecode,BlendShapeCount,JawOpen,EyeBlinkLeft,HeadYaw\n");
    for i in 0..200u32 {
        if i == 50 {
            continue; // a dropped frame
        }
        let f = 2 * i;
        let (sec, ff) = (f / 60, f % 60);
        if i == 120 {
            s += &format!("10:00:{sec:02}:{ff:02}.000,0\n"); // tracking lost
            continue;
        }
        let t = i as f32 / 30.0;
        s += &format!(
            "10:00:{sec:02}:{ff:02}.000,3,{},{},0\n",
            0.5 + 0.4 * (2.0 * t).sin(),
            if i % 40 < 4 { 1.0 } else { 0.0 }
        );
    }
    s
}

#[test]
fn bench_and_compress_report_curves() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("take.csv");
    std::fs::write(&csv, take()).unwrap();
    let json = dir.path().join("r.json");
    let out = Command::cargo_bin("animcomp")
        .unwrap()
        .args([
            "bench",
            csv.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("2 missing samples (1 tracking-lost rows"),
        "{stdout}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let t = &v["totals"];
    assert_eq!(t["curves"], 3);
    assert_eq!(t["curve_raw_bytes"], 3 * 200 * 4);
    let packed = t["curve_compressed_bytes"].as_u64().unwrap();
    assert!(packed > 0 && packed < 3 * 200 * 4, "{packed}");
    let err = t["curve_max_error"].as_f64().unwrap();
    assert!(err <= 0.001 && err > 0.0, "{err}");

    let blob = dir.path().join("take.acmp");
    let out = Command::cargo_bin("animcomp")
        .unwrap()
        .args([
            "compress",
            csv.to_str().unwrap(),
            "-o",
            blob.to_str().unwrap(),
            "--curve-precision",
            "0.01",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("3 curves, 200 samples at 30 Hz, precision 0.01"),
        "{stdout}"
    );
    assert!(std::fs::metadata(&blob).unwrap().len() < packed);
}
