/**
 * Secret-corpus cases defined by shape rather than by provider: private keys
 * (PEM, PGP, base64), URLs with credentials, headers and command lines, and
 * secret keys in config files.
 */
import {
  ALNUM,
  B64,
  base64,
  DIGITS,
  envKey,
  host,
  inShape,
  LOWER,
  password,
  pem,
  pkcs8Key,
  rsaKey,
  spell,
  user,
} from "./corpus-random.ts";
import type { Maker, SecretCase } from "./secret-corpus.ts";

/** A private key case: the secret is a middle line, every body line is a piece. */
export function pemCase(kind: string, block: string, lines: string[], text: string): SecretCase {
  const full = lines.filter((l) => l.length === 64);
  return {
    kind,
    secret: full[Math.floor(full.length / 2)] ?? lines[0] ?? block,
    text,
    pieces: full,
  };
}

/** Cases by kind (the kind is filled in by `secretCorpus`). */
export const SHAPE_MAKERS: Record<string, Maker> = {
  // --- private keys ---------------------------------------------------------
  private_key_rsa: (r) => {
    const { block, lines } = rsaKey(r);
    return pemCase("", block, lines, `Here is the deploy key:\n\n${block}\n`);
  },
  private_key_pkcs8: (r) => {
    const { block, lines } = pkcs8Key(r);
    return pemCase("", block, lines, `${block}\n`);
  },
  private_key_ec: (r) => {
    const { block, lines } = pem(
      r,
      "EC PRIVATE KEY",
      [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20],
      140,
    );
    return pemCase("", block, lines, `key.pem:\n${block}`);
  },
  private_key_openssh: (r) => {
    const magic = [...Buffer.from("openssh-key-v1\0")];
    const { block, lines } = pem(r, "OPENSSH PRIVATE KEY", magic, 380);
    return pemCase("", block, lines, `~/.ssh/id_ed25519\n${block}\n`);
  },
  private_key_encrypted: (r) => {
    const { block, lines } = pem(
      r,
      "ENCRYPTED PRIVATE KEY",
      [0x30, 0x82, 0x05, 0x0e, 0x30, 0x40],
      1200,
    );
    return pemCase("", block, lines, block);
  },
  private_key_pgp: (r) => {
    const body = base64(r, 700).match(/.{1,64}/g) ?? [];
    const block = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body.join("\n")}\n=${base64(r, 3)}\n-----END PGP PRIVATE KEY BLOCK-----`;
    return pemCase("", block, body, block);
  },
  private_key_base64_blob: (r) => {
    const secret = Buffer.from(`${rsaKey(r).block}\n`).toString("base64");
    return { kind: "", secret, text: `${envKey(r, ["deploy", "key", "b64"])}=${secret}` };
  },

  // --- URLs with credentials -------------------------------------------------
  basic_auth_url: (r) => {
    const secret = password(r).replace(/[^A-Za-z0-9_-]/g, "x");
    return {
      kind: "",
      secret,
      text: `pip install --index-url https://${user(r)}:${secret}@pypi.${r.chars(LOWER, 5)}.example.com/simple pkg`,
    };
  },
  postgres_url: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `DATABASE_URL=postgres://${user(r)}:${secret}@${host(r)}:5432/app?sslmode=require`,
    };
  },
  mysql_url: (r) => {
    const secret = password(r);
    return { kind: "", secret, text: `jdbc:mysql://${user(r)}:${secret}@${host(r)}:3306/shop` };
  },
  mongodb_url: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `mongodb+srv://${user(r)}:${secret}@cluster0.${r.chars(LOWER, 5)}.mongodb.net/test?retryWrites=true`,
    };
  },
  redis_url: (r) => {
    const secret = password(r);
    return { kind: "", secret, text: `REDIS_URL=redis://:${secret}@${host(r)}:6379/0` };
  },
  amqp_url: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `broker_url = "amqp://${user(r)}:${secret}@${host(r)}:5672//"`,
    };
  },

  // --- headers and command lines ---------------------------------------------
  authorization_bearer: (r) => {
    const secret = r.mixed(`${ALNUM}-._~`, r.between(30, 60));
    return {
      kind: "",
      secret,
      text: `curl -H "Authorization: Bearer ${secret}" https://api.example.com/me`,
    };
  },
  authorization_basic: (r) => {
    const secret = Buffer.from(`${user(r)}:${password(r)}`).toString("base64");
    return { kind: "", secret, text: `Authorization: Basic ${secret}` };
  },
  cli_password_equals: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `${r.pick(["psql", "mongo", "redis-cli", "./deploy.sh"])} --password=${secret} --host ${host(r)}`,
    };
  },
  cli_password_space: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `docker login registry.example.com --username ${user(r)} --password ${secret}`,
    };
  },
  cli_p_quoted: (r) => {
    const secret = password(r);
    return { kind: "", secret, text: `mysqldump -u root -p'${secret}' shop > shop.sql` };
  },
  pgpassword_env: (r) => {
    const secret = password(r);
    return { kind: "", secret, text: `PGPASSWORD=${secret} psql -h ${host(r)} -U ${user(r)} app` };
  },
  sshpass: (r) => {
    const secret = password(r);
    return { kind: "", secret, text: `sshpass -p ${secret} ssh ${user(r)}@${host(r)}` };
  },

  // --- generic assignments in config shapes -----------------------------------
  env_api_key: (r) => {
    const secret = r.mixed(ALNUM, r.between(24, 48));
    return {
      kind: "",
      secret,
      text: `${envKey(r, [r.pick(["acme", "billing", "search"]), "api", "key"])}=${secret}`,
    };
  },
  env_client_secret: (r) => {
    const secret = `${r.mixed(ALNUM, 3)}8Q~${r.mixed(`${ALNUM}_.-`, 34)}`;
    return {
      kind: "",
      secret,
      text: `export ${envKey(r, ["azure", "client", "secret"])}="${secret}"`,
    };
  },
  yaml_password: (r) => {
    const secret = password(r);
    const quote = r.pick(["", "'", '"']);
    return {
      kind: "",
      secret,
      text: `database:\n  host: ${host(r)}\n  ${spell(r, ["db", "password"])}: ${quote}${secret}${quote}\n`,
    };
  },
  json_client_secret: (r) => {
    const secret = r.mixed(`${ALNUM}_-`, r.between(24, 40));
    return {
      kind: "",
      secret,
      text: `{\n  "client_id": "${r.chars(DIGITS, 12)}.apps.example.com",\n  "${spell(r, ["client", "secret"])}": "${secret}"\n}`,
    };
  },
  ini_password: (r) => {
    const secret = password(r);
    return {
      kind: "",
      secret,
      text: `[client]\nuser = ${user(r)}\n${r.pick(["password", "passwd", "Password"])} = ${secret}\n`,
    };
  },
  toml_token: (r) => {
    const secret = r.mixed(ALNUM, r.between(24, 40));
    return {
      kind: "",
      secret,
      text: `[registries.internal]\n${spell(r, ["auth", "token"])} = "${secret}"\n`,
    };
  },
  python_secret_key: (r) => {
    const secret = r.mixed(`${ALNUM}!@#%^*(-_=+)`, 50);
    return { kind: "", secret, text: `SECRET_KEY = '${secret}'` };
  },
  yaml_private_key_inline: (r) => {
    const secret = r.mixed(B64, 44);
    return { kind: "", secret, text: `wireguard:\n  ${spell(r, ["private", "key"])}: ${secret}` };
  },
  passphrase_assignment: (r) => {
    const secret = `${r.chars(LOWER, 5)}-${r.chars(LOWER, 6)}-${r.chars(LOWER, 5)}-${r.chars(DIGITS, 2)}`;
    return { kind: "", secret, text: `GPG_PASSPHRASE="${secret}"` };
  },
  config_secret_any_shape: (r) => {
    const secret = r.mixed(`${ALNUM}_-`, r.between(20, 48));
    const key = spell(
      r,
      r.pick([
        ["api", "key"],
        ["client", "secret"],
        ["auth", "token"],
        ["access", "key"],
        ["signing", "key"],
        ["webhook", "secret"],
        ["refresh", "token"],
      ]),
    );
    return { kind: "", secret, text: inShape(r, key, secret) };
  },
  config_password_any_shape: (r) => {
    const secret = password(r);
    const key = spell(
      r,
      r.pick([
        ["password"],
        ["db", "password"],
        ["smtp", "pass"],
        ["admin", "passwd"],
        ["redis", "pwd"],
        ["key", "passphrase"],
      ]),
    );
    return { kind: "", secret, text: inShape(r, key, secret) };
  },
  credential_in_prose_assignment: (r) => {
    const secret = r.mixed(ALNUM, 32);
    return {
      kind: "",
      secret,
      text: `We tried ${spell(r, ["access", "token"])}=${secret} against staging and it worked.`,
    };
  },
};
