// A project: a name and a code, a budget, an active flag, and the to-many `tasks` collection
// (the tasks whose `project` names it).
module.exports = {
  attributes: {
    name: { type: 'string', required: true },
    code: { type: 'string', required: true },
    budget: { type: 'number', defaultsTo: 0 },
    active: { type: 'boolean', defaultsTo: true },
    tasks: { collection: 'task', via: 'project' }
  }
};
