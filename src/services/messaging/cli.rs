//! The messaging service's operator commands (`switchboard admin …`): workspaces and
//! their credits, until a signup flow exists.

use super::accounts::admin::{add_credits, create_workspace, NewWorkspace};
use super::billing::domain::credits_text;
use super::settings::MessagingSettings;
use crate::core::admin::{AdminContext, AdminRun};
use clap::{FromArgMatches, Subcommand};

#[derive(Subcommand)]
pub enum Command {
    /// Create a messaging workspace and print its API key (shown once; stored hashed).
    CreateWorkspace {
        #[arg(long)]
        name: String,
        /// Starting balance in credits (at most two decimals).
        #[arg(long, default_value = "0")]
        credits: String,
        /// credit.low threshold in credits (default from config).
        #[arg(long)]
        low_credit_threshold: Option<String>,
        /// Carrier number (E.164) whose inbound SMS belong to this workspace.
        #[arg(long)]
        phone_number: Option<String>,
        /// Default email sender display name (default: the workspace name).
        #[arg(long)]
        sender_name: Option<String>,
    },
    /// Add credits to a messaging workspace.
    AddCredits {
        #[arg(long)]
        workspace: uuid::Uuid,
        #[arg(long)]
        credits: String,
    },
}

pub fn commands(admin: clap::Command) -> clap::Command {
    Command::augment_subcommands(admin)
}

pub fn run<'a>(
    admin: &'a clap::ArgMatches,
    ctx: AdminContext<'a>,
    cfg: &'a MessagingSettings,
) -> Option<AdminRun<'a>> {
    let command = Command::from_arg_matches(admin).ok()?;
    Some(Box::pin(async move {
        match command {
            Command::CreateWorkspace {
                name,
                credits,
                low_credit_threshold,
                phone_number,
                sender_name,
            } => {
                let new = NewWorkspace {
                    name,
                    credits,
                    low_credit_threshold,
                    phone_number,
                    sender_name,
                };
                let threshold = cfg.default_low_credit_threshold;
                let created = create_workspace(ctx.db, ctx.now, threshold, new).await?;
                // The only place the key ever appears; scripts read the last line.
                println!("workspace_id: {}", created.workspace.id);
                println!("api_key: {}", created.api_key);
            }
            Command::AddCredits { workspace, credits } => {
                let balance = add_credits(ctx.db, ctx.now, workspace, &credits).await?;
                println!("credits_balance: {}", credits_text(balance));
            }
        }
        Ok(())
    }))
}
