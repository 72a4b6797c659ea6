//! Prints what the importers read from each file given on the command line (debugging aid).

fn main() {
    let args: Vec<std::path::PathBuf> = std::env::args_os().skip(1).map(Into::into).collect();
    for f in animcomp_import::collect_files(&args) {
        match animcomp_import::load(&f, &Default::default()) {
            Ok(clips) => {
                for c in clips {
                    let clip = &c.clip;
                    println!(
                        "{}: joints {} samples {} rate {} duration {:.3}s units {} threshold {:?}",
                        clip.name,
                        clip.num_joints(),
                        clip.num_samples,
                        clip.sample_rate,
                        clip.duration(),
                        c.units,
                        c.error_threshold
                    );
                }
            }
            Err(e) => println!("{e}"),
        }
    }
}
