"""SQL for tenant webhooks: endpoints, deliveries and attempts, health figures, owner notifications."""
