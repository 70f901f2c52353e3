// A person who may be assigned tasks.
module.exports = {
  attributes: {
    name: { type: 'string', required: true },
    role: { type: 'string', defaultsTo: 'engineer' },
    email: { type: 'string', allowNull: true }
  }
};
