//! `handlers!`: registers a service's endpoints, one line per feature, in the order given
//! (actix matches routes in registration order), on anything with `.service(…)` (an actix or
//! utoipa scope or service config).

/// `handlers!(target, auth::routes => [signup, signin], users::routes => [me])` is
/// `target.service(auth::routes::signup).service(auth::routes::signin).service(users::routes::me)`.
#[macro_export]
macro_rules! handlers {
    ($target:expr $(,)?) => {
        $target
    };
    ($target:expr, $($module:ident)::+ => [$($handler:ident),* $(,)?] $(, $($rest:tt)*)?) => {
        $crate::handlers!(
            {
                use $($module)::+ as feature;
                $target$(.service(feature::$handler))*
            }
            $(, $($rest)*)?
        )
    };
}
