//! The services. Each has the same shape: `mod.rs` implements `core::service::Service` (its
//! guard and its mount) and registers its features' routes, `settings.rs` holds its
//! `[services.<name>]` section, `error.rs` its error envelope and `openapi.rs` what its
//! document says besides the routes; each feature is a folder with its `routes.rs`, `dto.rs`
//! (wire shapes), `domain.rs` (parsed types) and `store.rs` or `service.rs` as it needs them.

pub mod advertising;
pub mod identity;
pub mod interview;
pub mod marketplace;
pub mod messaging;

use crate::core::service::{Listener, Registered, Section, Service};
use crate::providers::Providers;
use serde::Deserialize;

/// Registers the services, one line each: `name: Type`, where `Type` implements [`Service`]
/// with `NAME` = `name` and its settings have `enabled` and `bind`. Generates
/// [`ServicesSettings`], which has a typed field per service, and the registry startup
/// iterates.
macro_rules! register {
    ($($name:ident: $service:ty,)*) => {
        /// `[services.<name>]`: each registered service's own section.
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(default)]
        pub struct ServicesSettings {
            $(pub $name: <$service as Service>::Settings,)*
        }

        impl ServicesSettings {
            /// Every registered service with its section, in the order they start in.
            pub fn registered(&self) -> Vec<Box<dyn Registered<Providers> + '_>> {
                vec![$(Box::new(Section::<$service> {
                    settings: &self.$name,
                    listener: Listener {
                        enabled: self.$name.enabled,
                        bind: &self.$name.bind,
                    },
                }),)*]
            }

            /// Every service's operator commands, added to `admin` (`switchboard admin …`).
            pub fn admin_commands(admin: clap::Command) -> clap::Command {
                $(let admin = <$service as Service>::admin_commands(admin);)*
                admin
            }

            /// Keeps only the named services enabled (`serve --only a,b`).
            pub fn restrict_to(&mut self, only: &[String]) {
                let keep = |name: &str| only.iter().any(|o| o.eq_ignore_ascii_case(name));
                $(self.$name.enabled &= keep(<$service as Service>::NAME);)*
            }
        }
    };
}

register! {
    identity: identity::Identity,
    interview: interview::Interview,
    messaging: messaging::Messaging,
    marketplace: marketplace::Marketplace,
    advertising: advertising::Advertising,
}

#[cfg(test)]
mod tests {
    use super::*;
    use figment::providers::{Format, Toml};
    use figment::Figment;

    fn names(services: &ServicesSettings) -> Vec<&'static str> {
        services.registered().iter().map(|s| s.name()).collect()
    }

    #[test]
    fn each_service_is_registered_once_under_its_own_section() {
        let registered = names(&ServicesSettings::default());
        let mut unique = registered.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), registered.len(), "{registered:?}");
        // Each service reads the section named after it.
        let toml: String = registered
            .iter()
            .map(|name| format!("[{name}]\nbind = \"{name}\"\n"))
            .collect();
        let parsed: ServicesSettings = Figment::from(Toml::string(&toml)).extract().unwrap();
        for service in parsed.registered() {
            assert_eq!(service.listener().bind, service.name());
        }
    }

    #[test]
    fn only_keeps_the_named_services() {
        let mut services = ServicesSettings::default();
        services.restrict_to(&["Identity".into(), "marketplace".into()]);
        let running: Vec<_> = services
            .registered()
            .iter()
            .filter(|s| s.listener().enabled)
            .map(|s| s.name())
            .collect();
        assert_eq!(running, ["identity", "marketplace"]);
    }
}
