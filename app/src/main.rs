//! Entry point of the browser bundle that Trunk builds.

fn main() {
    wheelwright_app::mount();
}
