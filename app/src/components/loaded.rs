//! A page's content once its resource has loaded: "Loading…" until then, the error if it fails.

use leptos::prelude::*;

use crate::api::ApiError;

/// Renders `render(value)` once `resource` has loaded.
///
/// The resource is a [`LocalResource`], so when what it depends on changes (another run,
/// another benchmark) only the latest request's reply is shown; a slow earlier reply is
/// dropped rather than overwriting it. The first load shows "Loading…"; a reload (the run's
/// tests finished) keeps the page as it is until the new reply is in, as [`Transition`] does;
/// a failed request reaches the [`ErrorBoundary`], which shows the API's message.
pub(crate) fn loaded<T, V>(
    resource: LocalResource<Result<T, ApiError>>,
    render: impl Fn(T) -> V + Clone + Send + 'static,
) -> impl IntoView
where
    T: Clone + 'static,
    V: IntoView + 'static,
{
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
            <ErrorBoundary fallback=|errors| {
                view! {
                    <p class="error">
                        {move || {
                            errors
                                .get()
                                .into_iter()
                                .map(|(_, e)| e.to_string())
                                .collect::<Vec<_>>()
                                .join("; ")
                        }}
                    </p>
                }
            }>
                {move || {
                    let render = render.clone();
                    Suspend::new(async move { resource.await.map(render) })
                }}
            </ErrorBoundary>
        </Transition>
    }
}
