"""PostgreSQL storage (psycopg 3, plain SQL): migrations, rows, and the database to use."""
