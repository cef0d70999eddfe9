//! Sandbox start overhead: `/bin/true` through the whole harness, on bwrap and on podman.
//!
//! bwrap needs root and bubblewrap. The podman case runs when podman and the image
//! (`scripts/podman-image`) are there, and says on stderr why it is skipped otherwise.

use criterion::{Criterion, criterion_group, criterion_main};
use wheelwright_sandbox::{
    BwrapConfig, BwrapSandbox, Job, PodmanConfig, PodmanSandbox, Sandbox, Status,
};

fn bench(c: &mut Criterion, name: &str, sandbox: &dyn Sandbox) {
    let job = Job::command(["/bin/true"]);
    c.bench_function(name, |b| {
        b.iter(|| {
            let outcome = sandbox.run(&job).expect("run");
            assert_eq!(outcome.status, Status::Exited(0));
        })
    });
}

fn start(c: &mut Criterion) {
    let config = BwrapConfig {
        slots: 1,
        base_uid: 65300,
        ..BwrapConfig::default()
    };
    match BwrapSandbox::new(config) {
        Ok(s) => bench(c, "bwrap_true", &s),
        Err(e) => panic!("the start benchmark needs root and bwrap: {e}"),
    }
    let config = PodmanConfig {
        slots: 1,
        base_uid: 65350,
        ..PodmanConfig::default()
    };
    match PodmanSandbox::new(config) {
        Ok(s) => {
            let mut group = c.benchmark_group("podman");
            // About half a second per sample here: fewer samples, more time.
            group.sample_size(20);
            group.measurement_time(std::time::Duration::from_secs(12));
            group.bench_function("podman_true", |b| {
                let job = Job::command(["/bin/true"]);
                b.iter(|| {
                    let outcome = s.run(&job).expect("run");
                    assert_eq!(outcome.status, Status::Exited(0));
                })
            });
            group.finish();
        }
        Err(e) => eprintln!("SKIPPED podman_true: {e}"),
    }
}

criterion_group!(benches, start);
criterion_main!(benches);
