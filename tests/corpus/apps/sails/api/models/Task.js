// A task of a project (`project`, a model association), maybe assigned to a person (`assignee`),
// with a status, a priority number and maybe a due date (a `YYYY-MM-DD` string).
module.exports = {
  attributes: {
    title: { type: 'string', required: true },
    status: { type: 'string', defaultsTo: 'todo' },
    priority: { type: 'number', defaultsTo: 2 },
    dueDate: { type: 'string', allowNull: true },
    project: { model: 'project' },
    assignee: { model: 'person' }
  }
};
