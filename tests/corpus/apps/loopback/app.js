'use strict'
// A small project tracker served by LoopBack 4 in plain JavaScript (no TypeScript build), for the
// rea fidelity corpus. Usage: node app.js PORT (binds 127.0.0.1). Models are defined without
// decorators (`defineModelClass`), repositories over the memory connector
// (`defineCrudRepositoryClass`), the REST API by `defineCrudRestController` (the stock CRUD
// controller: `filter[...]` queries, `/count`, PATCH by `where`, 204 writes), and two relation
// routes (`/projects/{id}/tasks`, `/people/{id}/tasks`) answer the tasks naming that id. The seed
// is `seed.json` next to this file, loaded at start with its explicit ids (the memory connector
// draws later ids from the next number), so every start holds the same records.
const path = require('path')
const fs = require('fs')
const { inject } = require('@loopback/core')
const { RestApplication } = require('@loopback/rest')
const {
  RepositoryMixin, juggler, Entity, ModelDefinition, defineModelClass, defineCrudRepositoryClass
} = require('@loopback/repository')
const { defineCrudRestController } = require('@loopback/rest-crud')

const SEED = JSON.parse(fs.readFileSync(path.join(__dirname, 'seed.json'), 'utf8'))

const ID = { type: 'number', id: true, generated: true }
// The seed sets explicit ids (`forceId: false`); a create without one draws the next number.
const SETTINGS = { forceId: false }
const Project = defineModelClass(Entity, new ModelDefinition({ name: 'Project', settings: SETTINGS })
  .addProperty('id', ID)
  .addProperty('name', { type: 'string', required: true })
  .addProperty('code', { type: 'string', required: true })
  .addProperty('budget', { type: 'number' })
  .addProperty('active', { type: 'boolean', default: true }))
const Person = defineModelClass(Entity, new ModelDefinition({ name: 'Person', settings: SETTINGS })
  .addProperty('id', ID)
  .addProperty('name', { type: 'string', required: true })
  .addProperty('role', { type: 'string' })
  .addProperty('email', { type: 'string' }))
const Task = defineModelClass(Entity, new ModelDefinition({ name: 'Task', settings: SETTINGS })
  .addProperty('id', ID)
  .addProperty('title', { type: 'string', required: true })
  .addProperty('status', { type: 'string', default: 'todo' })
  .addProperty('priority', { type: 'number', default: 2 })
  .addProperty('estimate', { type: 'number', default: 1 })
  .addProperty('projectId', { type: 'number' })
  .addProperty('assigneeId', { type: 'number' })
  .addProperty('dueDate', { type: 'string' }))

const MODELS = [[Project, '/projects', 'projects'], [Person, '/people', 'people'], [Task, '/tasks', 'tasks']]

class TrackerApp extends RepositoryMixin(RestApplication) {}

// The route `/<parent>/{id}/tasks`: the tasks whose `key` is the id, in the store's order.
function relationRoute (app, parent, key) {
  const spec = {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'number' } }],
    responses: { 200: { description: 'the tasks', content: { 'application/json': { schema: { type: 'array' } } } } }
  }
  app.route('get', `${parent}/{id}/tasks`, spec, async id => {
    const repo = await app.get('repositories.TaskRepository')
    return repo.find({ where: { [key]: id } })
  })
}

async function main () {
  const port = parseInt(process.argv[2] || '18865', 10)
  const app = new TrackerApp({ rest: { host: '127.0.0.1', port, openApiSpec: { disabled: true } } })
  const ds = new juggler.DataSource({ name: 'db', connector: 'memory' })
  app.dataSource(ds, 'db')
  for (const [Model, basePath, seedKey] of MODELS) {
    const Repo = defineCrudRepositoryClass(Model)
    inject('datasources.db')(Repo, undefined, 0)
    const binding = app.repository(Repo)
    const Controller = defineCrudRestController(Model, { basePath })
    inject(binding.key)(Controller, undefined, 0)
    app.controller(Controller)
    const repo = await app.get(binding.key)
    for (const record of SEED[seedKey]) await repo.create(record)
  }
  relationRoute(app, '/projects', 'projectId')
  relationRoute(app, '/people', 'assigneeId')
  await app.start()
  console.log(`loopback tracker on 127.0.0.1:${port}`)
  const stop = () => app.stop().then(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch(err => { console.error(err); process.exit(1) })
