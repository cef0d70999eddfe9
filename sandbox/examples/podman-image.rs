//! Builds the podman backend's image once (`scripts/podman-image`): debootstrap, then import.

use std::process::ExitCode;

use wheelwright_sandbox::{ImageOptions, ImageStep, ensure_image};

fn main() -> ExitCode {
    let mut options = ImageOptions::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--program", Some(v)) => options.program = v.into(),
            ("--image", Some(v)) => options.image = v,
            ("--suite", Some(v)) => options.suite = v,
            ("--mirror", Some(v)) => options.mirror = v,
            _ => {
                eprintln!(
                    "usage: podman-image [--program podman|docker] [--image TAG] [--suite SUITE] \
                     [--mirror URL]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let started = std::time::Instant::now();
    let result = ensure_image(&options, |step| match step {
        ImageStep::Reused(image) => eprintln!("podman-image: {image} exists, nothing to do"),
        ImageStep::Debootstrap(dir) => eprintln!(
            "podman-image: debootstrap {} (python3) into {} (about a minute)",
            options.suite,
            dir.display()
        ),
        ImageStep::Import(image) => eprintln!("podman-image: importing as {image}"),
        ImageStep::Warning(w) => eprintln!("podman-image: warning: {w}"),
        ImageStep::Ready(image) => eprintln!(
            "podman-image: {image} built in {:.0} s",
            started.elapsed().as_secs_f64()
        ),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("podman-image: {e}");
            ExitCode::FAILURE
        }
    }
}
