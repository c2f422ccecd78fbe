use clap::{Parser, Subcommand};
use std::path::PathBuf;
use switchboard::core::config::Settings;
use switchboard::core::telemetry;
use switchboard::startup::{self, Application};

#[derive(Parser)]
#[command(name = "switchboard", version, about = "Runs the Switchboard services")]
struct Cli {
    /// Configuration file (defaults to ./config.toml; missing means built-in defaults).
    #[arg(long, global = true, default_value = "config.toml")]
    config: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start every enabled service, each on its own listener.
    Serve {
        /// Only these services (comma separated: marketplace,identity,interview,messaging,advertising).
        #[arg(long, value_delimiter = ',')]
        only: Option<Vec<String>>,
    },
    /// Run database migrations and exit.
    Migrate,
}

#[actix_web::main]
async fn main() -> anyhow_free::Result {
    telemetry::init();
    let cli = Cli::parse();
    let mut settings = Settings::load(&cli.config)?;
    match cli.command {
        Command::Serve { only } => {
            if let Some(only) = only {
                settings.restrict_to(&only);
            }
            let app = Application::build(settings).await?;
            app.run_until_stopped().await?;
        }
        Command::Migrate => {
            startup::migrate(&settings).await?;
            tracing::info!("migrations applied");
        }
    }
    Ok(())
}

mod anyhow_free {
    pub type Result = std::result::Result<(), Box<dyn std::error::Error>>;
}
