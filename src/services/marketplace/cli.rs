//! The marketplace's operator command (`switchboard admin …`): the first administrator.

use super::accounts::store::create_admin;
use crate::core::admin::{AdminContext, AdminRun};
use clap::{FromArgMatches, Subcommand};

#[derive(Subcommand)]
pub enum Command {
    /// Make the marketplace account of a phone a verified administrator (created when
    /// missing; running it again only sets the password) and print its user id.
    CreateMarketplaceAdmin {
        /// E.164 phone number.
        #[arg(long)]
        phone: String,
        /// At least 6 characters.
        #[arg(long)]
        password: String,
        #[arg(long)]
        name: Option<String>,
    },
}

pub fn commands(admin: clap::Command) -> clap::Command {
    Command::augment_subcommands(admin)
}

pub fn run<'a>(admin: &'a clap::ArgMatches, ctx: AdminContext<'a>) -> Option<AdminRun<'a>> {
    let Command::CreateMarketplaceAdmin {
        phone,
        password,
        name,
    } = Command::from_arg_matches(admin).ok()?;
    Some(Box::pin(async move {
        let id = create_admin(ctx.db, ctx.now, &phone, &password, name.as_deref()).await?;
        println!("user_id: {id}");
        Ok(())
    }))
}
