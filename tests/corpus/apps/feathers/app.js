'use strict'
// A small project tracker served by FeathersJS v5 (memory services) over its Express REST
// transport (no sockets), for the rea fidelity corpus. Usage: node app.js PORT (binds 127.0.0.1).
// The seed is `seed.json` next to this file, loaded at start with its explicit ids (each service
// draws the ids of later creates from the next number), so every start holds the same records.
const path = require('path')
const fs = require('fs')
const { feathers } = require('@feathersjs/feathers')
const express = require('@feathersjs/express')
const { MemoryService } = require('@feathersjs/memory')
const { BadRequest } = require('@feathersjs/errors')

const SEED = JSON.parse(fs.readFileSync(path.join(__dirname, 'seed.json'), 'utf8'))
const STATUSES = ['todo', 'doing', 'done']

// Query strings arrive as strings; the fields each service stores as numbers or booleans are
// converted (through operators, `$in` lists and `$or` branches) as a schema's coercion would.
const TYPED = {
  projects: { id: Number, budget: Number, active: v => v === true || v === 'true' },
  people: { id: Number },
  tasks: { id: Number, priority: Number, estimate: Number, projectId: Number, assigneeId: Number }
}

function coerce (convert, value) {
  if (Array.isArray(value)) return value.map(v => coerce(convert, v))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([op, v]) => [op, coerce(convert, v)]))
  }
  if (value === 'null' || value === null) return null
  return convert(value)
}

function coerceQuery (types, query) {
  const out = {}
  for (const [key, value] of Object.entries(query)) {
    if (key === '$or' || key === '$and') out[key] = [].concat(value).map(q => coerceQuery(types, q))
    else if (types[key]) out[key] = coerce(types[key], value)
    else out[key] = value
  }
  return out
}

const typedQuery = context => {
  const types = TYPED[context.path]
  if (types && context.params.query) context.params.query = coerceQuery(types, context.params.query)
}

// Tasks: a title is required on create and on replace; a status must be a choice; defaults.
const validateTask = context => {
  const data = context.data
  if (!data.title) throw new BadRequest('A task needs a title', { errors: { title: 'required' } })
  if (data.status != null && !STATUSES.includes(data.status)) {
    throw new BadRequest(`Invalid status '${data.status}'`, { errors: { status: STATUSES } })
  }
  if (context.method === 'create') {
    context.data = { status: 'todo', priority: 2, estimate: 1, projectId: null, assigneeId: null, dueDate: null, ...data }
  }
}

// Tasks keep clocks: a create sets createdAt and updatedAt, a patch or replace updatedAt (a
// replace keeps the record's createdAt).
const clocks = async context => {
  const now = new Date().toISOString()
  if (context.method === 'create') context.data = { ...context.data, createdAt: now, updatedAt: now }
  else if (context.method === 'patch') context.data = { ...context.data, updatedAt: now }
  else if (context.method === 'update') {
    const old = await context.service.get(context.id)
    context.data = { ...context.data, createdAt: old.createdAt, updatedAt: now }
  }
}

function store (records) {
  return Object.fromEntries(records.map(r => [r.id, { ...r }]))
}

function nextId (records) {
  return Math.max(...records.map(r => r.id)) + 1
}

const PAGE = { default: 10, max: 50 }
const app = express.default(feathers())
app.use(express.json())
app.configure(express.rest())
app.use('projects', new MemoryService({ store: store(SEED.projects), startId: nextId(SEED.projects) }))
app.use('people', new MemoryService({
  store: store(SEED.people), startId: nextId(SEED.people), paginate: PAGE
}))
app.use('tasks', new MemoryService({
  store: store(SEED.tasks), startId: nextId(SEED.tasks), paginate: PAGE, multi: ['patch', 'remove']
}))
app.hooks({ before: { all: [typedQuery] } })
app.service('tasks').hooks({
  before: { create: [validateTask, clocks], update: [validateTask, clocks], patch: [clocks] }
})
app.use(express.notFound())
app.use(express.errorHandler({ logger: false }))

const port = parseInt(process.argv[2] || '18863', 10)
app.listen(port, '127.0.0.1').then(server => {
  console.log(`feathers tracker on 127.0.0.1:${port}`)
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
})
