//! What a service is to the process: a name, its own `[services.<name>]` settings section,
//! what of that section the start-up guard refuses, and a mount that builds its state,
//! registers its background work and starts its listener, and the operator commands it adds
//! under `switchboard admin`. Startup and `main` iterate the registry of services (in the
//! services module) through [`Registered`] and know none of them by name.

use super::admin::{AdminContext, AdminRun};
use super::config::ConfigError;
use super::server::{Listening, MountError};
use super::CoreContext;
use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;

pub trait Service: 'static {
    /// The section (`[services.<NAME>]`), the name `serve --only` takes and the listener's
    /// name in logs and `Application::address`.
    const NAME: &'static str;
    /// The service's own section, with its defaults. Every section has `enabled` and `bind`.
    type Settings: std::fmt::Debug + Clone + Default + DeserializeOwned + Send + Sync + 'static;
    /// What startup builds besides the core and hands every service: the providers.
    type Providers;

    /// Values of the section no deployment can use; checked whether the service runs or not.
    fn validate(_cfg: &Self::Settings) -> Result<(), ConfigError> {
        Ok(())
    }

    /// Keys (of this section, or of what this service uses) that the start-up guard refuses
    /// once the process is reachable from other machines; asked only when the service runs.
    fn unsafe_keys(_cfg: &Self::Settings, _providers: &Self::Providers) -> Vec<String> {
        Vec::new()
    }

    /// Builds the service's state, registers its background work with `core.jobs` and
    /// starts its listener on `cfg`'s bind.
    fn mount(
        core: &CoreContext,
        providers: &Self::Providers,
        cfg: &Self::Settings,
    ) -> Result<Listening, MountError>;

    /// Listeners beside the service's own whose start must be awaited (the marketplace's
    /// sandbox opens and migrates a database of its own); started after every mount, only
    /// when the service runs.
    fn companions<'a>(
        _core: &'a CoreContext,
        _providers: &'a Self::Providers,
        _cfg: &'a Self::Settings,
    ) -> BoxFuture<'a, Result<Vec<Listening>, MountError>> {
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    /// Adds the service's operator commands to `admin` (`switchboard admin …`): the
    /// service's `cli.rs`. None by default.
    fn admin_commands(admin: clap::Command) -> clap::Command {
        admin
    }

    /// Runs the operator command `admin` (the `admin` command's matches) names, when it is
    /// one of this service's; `None` otherwise.
    fn run_admin<'a>(
        _admin: &'a clap::ArgMatches,
        _ctx: AdminContext<'a>,
        _cfg: &'a Self::Settings,
        _providers: &'a Self::Providers,
    ) -> Option<AdminRun<'a>> {
        None
    }
}

/// Whether a section turns its service on, and where the service listens.
#[derive(Debug, Clone, Copy)]
pub struct Listener<'a> {
    pub enabled: bool,
    pub bind: &'a str,
}

/// A registered service with its section, as startup drives it without knowing its types.
pub trait Registered<P> {
    fn name(&self) -> &'static str;
    fn listener(&self) -> Listener<'_>;
    fn validate(&self) -> Result<(), ConfigError>;
    fn unsafe_keys(&self, providers: &P) -> Vec<String>;
    fn mount(&self, core: &CoreContext, providers: &P) -> Result<Listening, MountError>;
    fn companions<'a>(
        &'a self,
        core: &'a CoreContext,
        providers: &'a P,
    ) -> BoxFuture<'a, Result<Vec<Listening>, MountError>>;
    fn admin_commands(&self, admin: clap::Command) -> clap::Command;
    fn run_admin<'a>(
        &'a self,
        admin: &'a clap::ArgMatches,
        ctx: AdminContext<'a>,
        providers: &'a P,
    ) -> Option<AdminRun<'a>>;
}

/// Service `S` bound to its parsed section.
pub struct Section<'a, S: Service> {
    pub settings: &'a S::Settings,
    pub listener: Listener<'a>,
}

impl<S: Service> Registered<S::Providers> for Section<'_, S> {
    fn name(&self) -> &'static str {
        S::NAME
    }

    fn listener(&self) -> Listener<'_> {
        self.listener
    }

    fn validate(&self) -> Result<(), ConfigError> {
        S::validate(self.settings)
    }

    fn unsafe_keys(&self, providers: &S::Providers) -> Vec<String> {
        S::unsafe_keys(self.settings, providers)
    }

    fn mount(&self, core: &CoreContext, providers: &S::Providers) -> Result<Listening, MountError> {
        S::mount(core, providers, self.settings)
    }

    fn companions<'a>(
        &'a self,
        core: &'a CoreContext,
        providers: &'a S::Providers,
    ) -> BoxFuture<'a, Result<Vec<Listening>, MountError>> {
        S::companions(core, providers, self.settings)
    }

    fn admin_commands(&self, admin: clap::Command) -> clap::Command {
        S::admin_commands(admin)
    }

    fn run_admin<'a>(
        &'a self,
        admin: &'a clap::ArgMatches,
        ctx: AdminContext<'a>,
        providers: &'a S::Providers,
    ) -> Option<AdminRun<'a>> {
        S::run_admin(admin, ctx, self.settings, providers)
    }
}
