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


def report_query():
    """A reporting query of a BI dashboard (aliases, joins, aggregates, a window and a CASE)."""
    return (
        "select o.id, o.total * 1.2 as gross, upper(c.name) customer, count(*) n, c.*,\n"
        "       case when o.total > 100 then 'big' when o.total > 10 then 'mid' else 'small' end as size,\n"
        "       sum(o.total) over (partition by c.id) as running\n"
        "from sales.orders o\n"
        "left join customers as c on c.id = o.customer_id\n"
        "join \"Region\" r using (region_id)\n"
        "where o.status = 'paid' and c.country in ('DE', 'FR') and r.active\n"
        "group by o.id\n"
        "order by gross desc"
    )


def cte_query():
    """A query with common table expressions that build on each other."""
    return (
        "with recent as (select id, customer_id, total from sales.orders where created > now() - interval '7 days'),\n"
        "     big as (select r.id, r.total * 2 as doubled from recent r join limits l on l.id = r.customer_id where r.total > l.amount)\n"
        "select b.id, b.doubled, k.label\n"
        "from big b, (select id, label from kinds) k\n"
        "where b.id = k.id"
    )


def snippet_sql():
    """A typical application query kept as a snippet (two statements, a comment, a subquery)."""
    return (
        "-- active customers with recent orders\n"
        "select c.id, c.name, count(o.id) as orders from customers c join orders o on o.customer_id = c.id "
        "where c.active = 1 and o.created > '2024-01-01' and c.region in (select id from regions where code = 'EU') "
        "group by c.id, c.name order by orders desc;\n"
        "update customers set last_seen = now() where id = 42;"
    )


def routines_script():
    """A script defining stored routines: a PL/pgSQL function, a MySQL-style procedure, a SQL function."""
    return (
        "create or replace function app.add_points(p_user int, p_pts integer default 1) returns integer as $body$\n"
        "DECLARE\n"
        "  total int := 0;\n"
        "  bonus numeric(6, 2);\n"
        "  note text;\n"
        "BEGIN\n"
        "  SELECT points INTO total FROM users WHERE id = p_user;\n"
        "  IF total IS NULL THEN\n"
        "    total := 0;\n"
        "  ELSIF total > 1000 THEN\n"
        "    bonus := total::numeric / 10;\n"
        "    IF bonus > 50 THEN\n"
        "      bonus := 50;\n"
        "    END IF;\n"
        "  END IF;\n"
        "  FOR r IN SELECT * FROM rewards WHERE user_id = p_user LOOP\n"
        "    total := total + r.amount::int;\n"
        "  END LOOP;\n"
        "  UPDATE users SET points = total + p_pts, updated = now() WHERE id = p_user;\n"
        "  INSERT INTO audit.points_log (user_id, delta, at) VALUES (p_user, p_pts, timestamp '2024-01-01 00:00');\n"
        "  RETURN total;\n"
        "END;\n"
        "$body$ language plpgsql;\n"
        "\n"
        "CREATE PROCEDURE reset_points(IN p_limit INT)\n"
        "BEGIN\n"
        "  DECLARE n INT DEFAULT 0;\n"
        "  DECLARE unused_flag BOOLEAN;\n"
        "  SET n = p_limit * 2;\n"
        "  IF n > 0 THEN\n"
        "    DELETE FROM points_cache WHERE points > n;\n"
        "  END IF;\n"
        "END;\n"
        "\n"
        "create function one() returns setof record language sql as 'select 1';\n"
        "select app.add_points(1, 2);\n"
    )
