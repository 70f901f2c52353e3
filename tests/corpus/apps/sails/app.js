'use strict'
// A small project tracker served by Sails.js 1.x blueprints, for the rea fidelity corpus.
// Usage: node app.js PORT (binds 127.0.0.1). The models are api/models/*.js (projects with a
// to-many `tasks` collection, people, tasks with `project` and `assignee` associations) over the
// sails-disk adapter kept in memory only (`inMemoryOnly`), dropped at every start. The blueprint
// REST routes are on (`/task`, `/task/:id`, `/project/:id/tasks`...); shortcut and action routes
// are off. The seed is `seed.json` next to this file, created at bootstrap with its explicit ids
// and timestamps (later creates draw the next number), so every start holds the same records.
const path = require('path')
const fs = require('fs')
const Sails = require('sails').constructor

const SEED = JSON.parse(fs.readFileSync(path.join(__dirname, 'seed.json'), 'utf8'))

// Creates the seed in order (projects and people before the tasks naming them), then moves each
// table's id sequence past the highest seeded id (sails-disk draws the next create's id from it).
async function seed (sails) {
  const disk = require('sails-disk')
  for (const [model, records] of [['project', SEED.project], ['person', SEED.person], ['task', SEED.task]]) {
    for (const record of records) await sails.models[model].create(record)
    const top = Math.max(...records.map(r => r.id))
    await new Promise((resolve, reject) => disk.setSequence('default', `${model}_id_seq`, top,
      err => err ? reject(err) : resolve()))
  }
}

function main () {
  const port = parseInt(process.argv[2] || '18866', 10)
  const app = new Sails()
  app.lift({
    appPath: __dirname,
    port,
    explicitHost: '127.0.0.1',
    environment: 'development',
    log: { level: 'warn' },
    hooks: { grunt: false, views: false, session: false, sockets: false, pubsub: false, i18n: false },
    models: {
      migrate: 'drop',
      datastore: 'default',
      schema: true,
      attributes: {
        id: { type: 'number', autoIncrement: true },
        createdAt: { type: 'number', autoCreatedAt: true },
        updatedAt: { type: 'number', autoUpdatedAt: true }
      }
    },
    datastores: { default: { adapter: 'sails-disk', inMemoryOnly: true } },
    blueprints: { rest: true, shortcuts: false, actions: false },
    security: { csrf: false },
    bootstrap: async () => seed(app)
  }, err => {
    if (err) { console.error(err); process.exit(1) }
    console.log(`sails tracker on 127.0.0.1:${port}`)
  })
  const stop = () => app.lower(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main()
