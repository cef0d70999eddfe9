"""Prelude for the sqlparse chains: imports the library and defines fixed sample SQL texts."""
import sqlparse


def migration_script():
    """A small PostgreSQL-flavoured migration file (up and down sections)."""
    return (
        "-- migrate:up\n"
        "-- ticket: DATA-101\n"
        'CREATE TABLE IF NOT EXISTS "users" (\n'
        "  id serial PRIMARY KEY,\n"
        "  email varchar(255) NOT NULL,\n"
        "  name text,\n"
        "  CONSTRAINT users_email_key UNIQUE (email)\n"
        ");\n"
        "create table app.orders (id int, user_id int references users(id), total numeric(10, 2) default 0);\n"
        "ALTER TABLE users ADD COLUMN age int;\n"
        "ALTER TABLE users DROP COLUMN nickname;  -- no longer used\n"
        "UPDATE users SET name = 'n/a';\n"
        "DELETE FROM app.orders WHERE total = 0;\n"
        "-- migrate:down\n"
        "DROP TABLE IF EXISTS app.orders, \"users\";\n"
        "/* keep the index */\n"
        "drop index idx_old;\n"
    )


def query_log_text():
    """A query log: one entry per line, "<duration in ms>|<sql>"; a quoted string may span lines."""
    return (
        "12.5|select * from users where email = 'ann@example.org'\n"
        "3|SELECT * FROM users WHERE email = 'bob@example.org';\n"
        "40|update users set bio = 'Line one\n"
        "line two of a long biography' where id = 7\n"
        "\n"
        "7.25|insert into users (name, email) values ('Cyd', 'cyd@example.org'); select count(*) from users\n"
        "1|select * from users where email = :email\n"
        "30|UPDATE users SET bio = 'short' WHERE id = 9\n"
    )
