'use strict'
// A small project tracker served as JSON:API by Fortune.js (the memory adapter), its HTTP
// listener (fortune-http) and its JSON:API serializer (fortune-json-api), for the rea fidelity
// corpus. Usage: node app.js PORT (binds 127.0.0.1). The seed is `seed.json` next to this file,
// created at start with explicit ids (the memory adapter would pick random ones), so every start
// holds the same records; records created later get the adapter's generated ids.
const http = require('http')
const path = require('path')
const fs = require('fs')
const fortune = require('fortune')
const fortuneHTTP = require('fortune-http')
const jsonApiSerializer = require('fortune-json-api')

const { BadRequestError, ConflictError } = fortune.errors
const STATUSES = ['todo', 'doing', 'done']

const recordTypes = {
  project: { name: String, code: String, budget: Number, tasks: [Array('task'), 'project'] },
  person: { name: String, role: String, email: String, tasks: [Array('task'), 'assignee'] },
  task: {
    title: String, status: String, priority: Number, estimate: Number, dueDate: Date,
    project: ['project', 'tasks'], assignee: ['person', 'tasks']
  }
}

// Input hooks: defaults and checks on create, a status check on update (an update the hook
// leaves alone answers 204 without a body, as Fortune does).
function taskInput (context, record, update) {
  const method = context.request.method
  if (method === 'create') {
    if (!record.title) throw new BadRequestError('A task needs a title.')
    if (record.status == null) record.status = 'todo'
    if (record.priority == null) record.priority = 2
    if (record.estimate == null) record.estimate = 1
    if (!STATUSES.includes(record.status))
      throw new BadRequestError(`The status "${record.status}" is not one of ${STATUSES.join(', ')}.`)
    return record
  }
  if (method === 'update') {
    const status = update.replace && update.replace.status
    if (status !== undefined && !STATUSES.includes(status))
      throw new BadRequestError(`The status "${status}" is not one of ${STATUSES.join(', ')}.`)
    return update
  }
  return null
}

function uniqueInput (field) {
  return (context, record, update) => {
    if (context.request.method !== 'create') return context.request.method === 'update' ? update : null
    return context.transaction.find(context.request.type, null, { match: { [field]: record[field] } })
      .then(found => {
        if (found.length) throw new ConflictError(`The ${field} "${record[field]}" is taken.`)
        return record
      })
  }
}

const store = fortune(recordTypes, {
  hooks: { task: [taskInput], person: [uniqueInput('email')], project: [uniqueInput('code')] }
})

const listener = fortuneHTTP(store, { serializers: [[jsonApiSerializer]] })

function seed () {
  const data = JSON.parse(fs.readFileSync(path.join(__dirname, 'seed.json'), 'utf8'))
  const tasks = data.task.map(t => Object.assign({}, t, { dueDate: t.dueDate && new Date(t.dueDate) }))
  return store.create('project', data.project)
    .then(() => store.create('person', data.person))
    .then(() => store.create('task', tasks))
}

const port = parseInt(process.argv[2] || '18866', 10)
store.connect().then(seed).then(() => {
  const server = http.createServer((request, response) =>
    listener(request, response).catch(() => {}))
  server.listen(port, '127.0.0.1', () => console.log(`fortune tracker on 127.0.0.1:${port}`))
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
})
